//! HTML helpers of the report tests: selectors, text, parsing, and the checks every report
//! passes (self-contained, every character in the embedded font).

use scraper::{ElementRef, Html, Selector};
use std::path::Path;

pub fn sel(s: &str) -> Selector {
    Selector::parse(s).unwrap()
}

/// The text of an element, without the line breaks plotters puts around SVG text.
pub fn text_of(e: ElementRef) -> String {
    e.text().collect::<String>().trim().to_string()
}

pub fn parse(path: &Path) -> (String, Html) {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = Html::parse_document(&text);
    (text, doc)
}

/// No script, image, stylesheet link or URL; the font embedded as a data URI.
pub fn assert_self_contained(text: &str) {
    let lower = text.to_lowercase();
    assert!(!lower.contains("<script"));
    assert!(!lower.contains("<img"));
    assert!(!lower.contains("<link"));
    let rest = lower.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(!rest.contains("http:") && !rest.contains("https:"), "a URL");
    assert!(text.contains("@font-face{font-family:'Report Sans'"));
    assert!(text.contains("src:url(data:font/ttf;base64,"));
}

/// Every character of every plot and of the prose and tables (whitespace aside) exists in the
/// embedded font, so no text falls back to a font of the machine that renders it; returns how
/// many characters the plots have.
pub fn assert_every_char_in_the_font(doc: &Html) -> usize {
    use ab_glyph::{Font, FontRef};
    let font = FontRef::try_from_slice(include_bytes!(
        "../../reports/assets/fonts/DejaVuSans-subset.ttf"
    ))
    .unwrap();
    let in_font = |c: char| {
        assert!(
            font.glyph_id(c).0 != 0,
            "{c:?} (U+{:04X}) not in the font",
            c as u32
        )
    };
    let mut chars = 0;
    for t in doc.select(&sel("svg text")) {
        text_of(t).chars().for_each(in_font);
        chars += text_of(t).chars().count();
        assert_eq!(t.value().attr("font-family"), Some("Report Sans"));
    }
    let body = doc.select(&sel("body")).next().unwrap();
    body.text()
        .flat_map(str::chars)
        .filter(|c| !c.is_whitespace())
        .for_each(in_font);
    chars
}
