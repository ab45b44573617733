// Self-checking Icarus bench: the catalogue check value of CRC-32/ISO-HDLC,
// CRC("123456789") = 0xCBF43926, through the combinational generator, its checker, and the
// two-stage pipelined generator (latency and out_valid included).
`timescale 1ns/1ps
`default_nettype none
module crc32_check_value_tb;
    // Byte 0 ('1' = 0x31) is data[7:0]: the first byte on the wire is the lowest byte.
    localparam [71:0] MESSAGE = 72'h393837363534333231;
    localparam [31:0] CHECK = 32'hCBF43926;

    reg  [71:0] data;
    wire [31:0] crc;
    reg  [31:0] crc_in;
    wire        ok;
    integer     errors;

    rtlgen_crc32 dut (.data(data), .crc(crc));
    rtlgen_crc32_check chk (.data(data), .crc_in(crc_in), .ok(ok));

    reg         clk, rst, in_valid;
    wire [31:0] crc_p;
    wire        out_valid;
    rtlgen_crc32_pipe pipe (.clk(clk), .rst(rst), .in_valid(in_valid), .data(data), .crc(crc_p), .out_valid(out_valid));

    always #1 clk = ~clk;

    initial begin
        errors = 0;
        clk = 1'b0; rst = 1'b1; in_valid = 1'b0;
        data = MESSAGE; crc_in = CHECK;
        #1;
        if (crc !== CHECK) begin $display("FAIL: crc = %h, expected %h", crc, CHECK); errors = errors + 1; end
        if (ok !== 1'b1) begin $display("FAIL: checker rejected the check value"); errors = errors + 1; end
        crc_in = CHECK ^ 32'h00010000;
        #1;
        if (ok !== 1'b0) begin $display("FAIL: checker accepted a corrupted CRC"); errors = errors + 1; end
        // Pipelined: present the message for one cycle, expect it two rising edges later.
        @(negedge clk); rst = 1'b0;
        @(negedge clk); in_valid = 1'b1;
        @(negedge clk); in_valid = 1'b0; data = 72'h0;
        if (out_valid !== 1'b0) begin $display("FAIL: out_valid after one cycle"); errors = errors + 1; end
        @(negedge clk);
        if (out_valid !== 1'b1 || crc_p !== CHECK) begin
            $display("FAIL: pipelined crc = %h valid %b, expected %h after 2 cycles", crc_p, out_valid, CHECK);
            errors = errors + 1;
        end
        @(negedge clk);
        if (out_valid !== 1'b0) begin $display("FAIL: out_valid held for more than one cycle"); errors = errors + 1; end
        if (errors == 0) $display("PASS: CRC-32/ISO-HDLC check value 0x%h", CHECK);
        $finish;
    end
endmodule
`default_nettype wire
