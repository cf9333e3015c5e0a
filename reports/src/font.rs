//! The report's one font: DejaVu Sans (free licence, see `reports/assets/fonts/`), subset by
//! `scripts/subset-font.sh`. plotters measures text with it (ab_glyph) and the HTML embeds the
//! same bytes as `@font-face`, so the plots' text looks and fits the same on every machine.

use base64::Engine;
use plotters::style::FontStyle;
use std::sync::Once;

/// The family name used in the SVG text and the `@font-face` rule.
pub const FAMILY: &str = "Report Sans";

pub const REGULAR: &[u8] = include_bytes!("../assets/fonts/DejaVuSans-subset.ttf");
pub const BOLD: &[u8] = include_bytes!("../assets/fonts/DejaVuSans-Bold-subset.ttf");

/// Registers the font with plotters (idempotent). Every family name plotters might ask for
/// resolves to it, so no text is ever measured with a font the browser will not use.
pub fn register() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for family in [FAMILY, "sans-serif", "serif", "monospace"] {
            let ok = plotters::style::register_font(family, FontStyle::Normal, REGULAR).is_ok()
                && plotters::style::register_font(family, FontStyle::Bold, BOLD).is_ok();
            assert!(ok, "the embedded font is a valid TrueType file");
        }
    });
}

/// `@font-face` rules with the fonts as base64 data URIs.
pub fn css_font_faces() -> String {
    let b64 = base64::engine::general_purpose::STANDARD;
    format!(
        "@font-face{{font-family:'{FAMILY}';font-weight:normal;font-style:normal;src:url(data:font/ttf;base64,{}) format('truetype');}}\n\
         @font-face{{font-family:'{FAMILY}';font-weight:bold;font-style:normal;src:url(data:font/ttf;base64,{}) format('truetype');}}\n",
        b64.encode(REGULAR),
        b64.encode(BOLD)
    )
}
