//! Figures of a report page: an SVG with its heading and caption, or a note saying why a
//! figure is not available in this run.

use super::fmt::escape;
use super::plots;
use std::fmt::Write;

/// Figure width and height in CSS pixels.
pub const FIG_W: u32 = 1060;
pub const FIG_H: u32 = 540;

/// A figure: heading, SVG (if any) and caption (HTML).
pub fn figure(h: &mut String, id: &str, title: &str, svg: Option<&str>, caption: &str) {
    let _ = write!(
        h,
        "<figure id=\"{id}\">\n<h3>{}</h3>\n{}\n<figcaption>{caption}</figcaption>\n</figure>\n",
        escape(title),
        svg.unwrap_or("")
    );
}

/// The smallest range of whole decades holding every finite positive value, if any.
pub fn decade_range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite() && *v > 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return None;
    }
    let (a, b) = plots::log_page_range(lo.log10(), hi.log10());
    Some((10f64.powf(a), 10f64.powf(b)))
}

/// A figure that this run cannot draw, saying why.
pub fn not_available(h: &mut String, id: &str, title: &str, why: &str) {
    let _ = write!(
        h,
        "<figure id=\"{id}\">\n<h3>{}</h3>\n<p class=\"note\">Not available in this run: {}</p>\n</figure>\n",
        escape(title),
        escape(why)
    );
}
