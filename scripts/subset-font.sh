#!/usr/bin/env bash
# Regenerates the font embedded in HTML reports: DejaVu Sans (Debian fonts-dejavu-core),
# subset to the characters a report uses, so each report carries ~100 KB of font instead of
# ~1 MB. Needs `apt-get install fonts-dejavu-core fonttools`.
set -euo pipefail
cd "$(dirname "$0")/.."
src=/usr/share/fonts/truetype/dejavu
out=reports/assets/fonts
# Basic Latin, Latin-1, Greek, punctuation, super/subscripts, arrows, mathematical operators,
# geometric shapes (legend swatches), subscript letters (κᵥ).
unicodes="U+0020-007E,U+00A0-00FF,U+0391-03C9,U+2000-206F,U+2070-209F,U+1D62-1D6A,U+2190-21FF,U+2200-22FF,U+25A0-25FF"
for face in DejaVuSans DejaVuSans-Bold; do
  pyftsubset "$src/$face.ttf" --unicodes="$unicodes" --no-hinting --layout-features='kern' \
    --output-file="$out/$face-subset.ttf"
done
cp /usr/share/doc/fonts-dejavu-core/copyright "$out/LICENSE-DejaVu.txt"
ls -l "$out"
