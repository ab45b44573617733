#!/usr/bin/env python3
"""Independent Reed-Solomon reference for rtl-gen's models, built on the `reedsolo` package.

Driven by rtl-gen/tests/rs_cross_check.rs. Reads requests from stdin, one per line, and writes
one answer line per request to stdout. Symbols are decimal; a codeword is highest degree first
(reedsolo's order, and the models'). Generator roots are alpha^fcr .. alpha^(fcr+nsym-1) with
alpha = 2 (generator=2 in reedsolo).

  encode C_EXP PRIM FCR NSYM MSG...   ->  the NSYM check symbols
  decode C_EXP PRIM FCR NSYM CW...    ->  "ok CW..." (corrected codeword) or "fail"
  eval   C_EXP PRIM X POLY...         ->  POLY(X), highest degree first

Needs: pip install reedsolo==1.7.0
"""
import sys

import reedsolo as rs


def main() -> None:
    field = None
    generators = {}
    out = []
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        op, c_exp, prim = words[0], int(words[1]), int(words[2])
        if field != (c_exp, prim):
            rs.init_tables(prim=prim, generator=2, c_exp=c_exp)
            field = (c_exp, prim)
            generators = {}
        if op == "eval":
            x = int(words[3])
            poly = [int(w) for w in words[4:]]
            out.append(str(rs.gf_poly_eval(poly, x)))
            continue
        fcr, nsym = int(words[3]), int(words[4])
        symbols = [int(w) for w in words[5:]]
        key = (fcr, nsym)
        if key not in generators:
            generators[key] = rs.rs_generator_poly(nsym, fcr=fcr, generator=2)
        if op == "encode":
            cw = rs.rs_encode_msg(symbols, nsym, fcr=fcr, generator=2, gen=generators[key])
            out.append(" ".join(str(s) for s in cw[len(symbols):]))
        elif op == "decode":
            try:
                msg, ecc, _ = rs.rs_correct_msg(symbols, nsym, fcr=fcr, generator=2)
                out.append("ok " + " ".join(str(s) for s in list(msg) + list(ecc)))
            except (rs.ReedSolomonError, ZeroDivisionError, IndexError, ValueError):
                out.append("fail")
        else:
            raise SystemExit(f"unknown request {op!r}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
