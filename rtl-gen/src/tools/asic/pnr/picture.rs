//! A PNG of the routed layout: the die outline, each placed cell as a rectangle (logic cells
//! grey, spacer cells pale), and the wires of each metal layer in its own translucent colour,
//! power and ground wider. Deterministic: the same layout gives the same bytes.

use super::layout::{Layout, Rect};

/// The colour of each metal layer, in layer order.
pub const LAYER_COLOURS: [(&str, [u8; 3]); 6] =
    [("metal1", [40, 90, 220]), ("metal2", [220, 50, 50]), ("metal3", [30, 160, 60]), ("metal4", [230, 140, 0]), ("metal5", [0, 170, 190]), ("metal6", [170, 40, 170])];

struct Canvas {
    w: usize,
    h: usize,
    px: Vec<[f32; 3]>,
}

impl Canvas {
    fn blend(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, colour: [u8; 3], alpha: f32) {
        let (xa, xb) = (x0.min(x1).floor().max(0.0) as usize, (x0.max(x1).ceil() as usize).min(self.w));
        let (ya, yb) = (y0.min(y1).floor().max(0.0) as usize, (y0.max(y1).ceil() as usize).min(self.h));
        for y in ya..yb.max(ya + 1).min(self.h) {
            for x in xa..xb.max(xa + 1).min(self.w) {
                let p = &mut self.px[y * self.w + x];
                for (c, v) in p.iter_mut().zip(colour) {
                    *c = *c * (1.0 - alpha) + v as f32 * alpha;
                }
            }
        }
    }
}

/// The layout drawn `long_side` pixels along the die's longer side, as PNG bytes, with the
/// image's width and height.
pub fn render(layout: &Layout, long_side: u32) -> Result<(Vec<u8>, u32, u32), String> {
    let die = layout.die.or_else(|| layout.core()).ok_or("the layout has neither a die area nor a placed cell")?;
    if die.width() <= 0.0 || die.height() <= 0.0 {
        return Err(format!("degenerate die {die:?}"));
    }
    let margin = 8.0;
    let scale = (long_side as f64 - 2.0 * margin) / die.width().max(die.height());
    let (w, h) = ((die.width() * scale + 2.0 * margin).round() as usize, (die.height() * scale + 2.0 * margin).round() as usize);
    let mut c = Canvas { w, h, px: vec![[255.0; 3]; w * h] };
    // µm to pixels, y up in the layout and down in the image.
    let map = |x: f64, y: f64| (margin + (x - die.x0) * scale, h as f64 - margin - (y - die.y0) * scale);
    let rect = |c: &mut Canvas, r: Rect, colour: [u8; 3], alpha: f32| {
        let (a, b) = (map(r.x0, r.y0), map(r.x1, r.y1));
        c.blend(a.0, a.1, b.0, b.1, colour, alpha);
    };
    let outline = |c: &mut Canvas, r: Rect, colour: [u8; 3], alpha: f32| {
        let (a, b) = (map(r.x0, r.y0), map(r.x1, r.y1));
        c.blend(a.0, a.1, b.0, a.1 + 1.0, colour, alpha);
        c.blend(a.0, b.1, b.0, b.1 + 1.0, colour, alpha);
        c.blend(a.0, b.1, a.0 + 1.0, a.1, colour, alpha);
        c.blend(b.0 - 1.0, b.1, b.0, a.1, colour, alpha);
    };
    for cell in &layout.cells {
        if cell.spacer {
            rect(&mut c, cell.rect, [235, 235, 228], 1.0);
        } else {
            rect(&mut c, cell.rect, [200, 200, 200], 1.0);
            outline(&mut c, cell.rect, [120, 120, 120], 1.0);
        }
    }
    for (layer, colour) in LAYER_COLOURS {
        for wire in layout.wires.iter().filter(|w| w.layer == layer) {
            // Signal wires at least a pixel wide; power stripes at their drawn width.
            let half = (wire.width.unwrap_or(0.3) * scale / 2.0).max(0.6);
            let (a, b) = (map(wire.from.0, wire.from.1), map(wire.to.0, wire.to.1));
            c.blend(a.0.min(b.0) - half, a.1.min(b.1) - half, a.0.max(b.0) + half, a.1.max(b.1) + half, colour, if wire.special { 0.35 } else { 0.75 });
        }
    }
    // Vias only where they are at least a pixel (small layouts): elsewhere they would hide the
    // wires under a speckle of black.
    if 0.2 * scale >= 1.0 {
        for wire in layout.wires.iter().filter(|w| w.layer.starts_with("via:") && !w.special) {
            let (x, y) = map(wire.from.0, wire.from.1);
            let half = 0.2 * scale;
            c.blend(x - half, y - half, x + half, y + half, [20, 20, 20], 0.8);
        }
    }
    outline(&mut c, die, [0, 0, 0], 1.0);

    let mut bytes = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut bytes, w as u32, h as u32);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::High);
        let mut writer = enc.write_header().map_err(|e| e.to_string())?;
        let data: Vec<u8> = c.px.iter().flat_map(|p| p.map(|v| v.round().clamp(0.0, 255.0) as u8)).collect();
        writer.write_image_data(&data).map_err(|e| e.to_string())?;
    }
    Ok((bytes, w as u32, h as u32))
}

#[cfg(test)]
mod tests {
    use super::super::layout::{Placed, Wire};
    use super::*;

    #[test]
    fn a_layout_renders_to_a_png_of_the_asked_size() {
        let layout = Layout {
            die: Some(Rect { x0: 0.0, y0: 0.0, x1: 100.0, y1: 50.0 }),
            cells: vec![Placed { macro_name: "INVX1".into(), rect: Rect { x0: 10.0, y0: 10.0, x1: 12.0, y1: 20.0 }, spacer: false }],
            wires: vec![Wire { layer: "metal2".into(), from: (20.0, 5.0), to: (20.0, 45.0), width: None, special: false }],
            unknown_macros: vec![],
        };
        let (bytes, w, h) = render(&layout, 400).expect("rendered");
        assert_eq!((w, h), (400, 208), "8 px margins around 100 × 50 µm at 3.84 px/µm");
        let decoder = png::Decoder::new(std::io::Cursor::new(&bytes));
        let mut reader = decoder.read_info().expect("a PNG");
        let mut buf = vec![0; reader.output_buffer_size().expect("size")];
        let info = reader.next_frame(&mut buf).expect("a frame");
        assert_eq!((info.width, info.height), (400, 208));
        // The metal2 wire at x = 20 µm is red-dominated; a corner is white.
        let px = |x: usize, y: usize| &buf[(y * 400 + x) * 3..(y * 400 + x) * 3 + 3];
        let x = (8.0 + 20.0 * 3.84f64).round() as usize;
        assert!(px(x, 100)[0] > 150 && px(x, 100)[1] < 120, "{:?}", px(x, 100));
        assert_eq!(px(2, 2), [255, 255, 255]);
        assert_eq!(render(&layout, 400).expect("again").0, bytes, "deterministic");
    }
}
