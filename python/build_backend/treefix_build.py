"""The package's build backend: maturin's, choosing where GMP and MPFR come from.

Built from source, GMP and MPFR take most of a first build. When a C compiler finds the
system's (Debian/Ubuntu: ``apt-get install libgmp-dev libmpfr-dev``) the extension links
them instead (the crate feature ``system-libs``). ``TREEFIX_GMP=system`` or ``=source``
decides without the probe. ``pip install -v ./python`` shows cargo's progress.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

import maturin

# The PEP 517 hooks this backend leaves to maturin as they are.
from maturin import (  # noqa: F401
    build_sdist,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_wheel,
)

# gmp-mpfr-sys takes the system's libraries from GMP 6.3 and MPFR 4.2 on (Debian 13, Ubuntu
# 24.04; Debian 12's GMP is 6.2): older ones fail the probe and the build takes the sources.
_PROBE = b"""#include <gmp.h>
#include <mpfr.h>
#if __GNU_MP_VERSION != 6 || __GNU_MP_VERSION_MINOR < 3
#error "GMP 6.3 or later 6.x needed"
#endif
#if MPFR_VERSION_MAJOR != 4 || MPFR_VERSION_MINOR < 2
#error "MPFR 4.2 or later 4.x needed"
#endif
int main(void) { mpfr_t x; mpfr_init(x); mpfr_clear(x); return 0; }
"""


def _system_libs_found() -> bool:
    """True when a C compiler builds and links a program against recent enough GMP and MPFR."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return False
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "probe.c")
        with open(src, "wb") as f:
            f.write(_PROBE)
        try:
            done = subprocess.run(
                [cc, src, "-lmpfr", "-lgmp", "-o", os.path.join(d, "probe")],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=60,
            )
        except (OSError, subprocess.SubprocessError):
            return False
        return done.returncode == 0


def _choose_libs(config_settings):
    """The settings maturin gets: ``--features system-libs`` added where GMP is the system's."""
    choice = os.environ.get("TREEFIX_GMP", "").lower()
    if choice not in ("", "system", "source"):
        raise RuntimeError(f"TREEFIX_GMP={choice!r}: expected 'system' or 'source'")
    system = choice == "system" or (choice == "" and _system_libs_found())
    where = "the system's" if system else "built from source (apt-get install libgmp-dev libmpfr-dev avoids it)"
    print(f"treefix-accuracy: GMP and MPFR: {where}", file=sys.stderr)
    if not system:
        return config_settings
    settings = dict(config_settings or {})
    # maturin reads its cargo arguments from the first of these it finds, else from the
    # environment; the feature joins whichever it will read.
    key = next((k for k in ("maturin.build-args", "build-args") if k in settings), None)
    if key is None:
        args = os.environ.get("MATURIN_PEP517_ARGS", "")
        if "system-libs" not in args:
            os.environ["MATURIN_PEP517_ARGS"] = (args + " --features system-libs").strip()
        return config_settings
    args = settings[key]
    args = args if isinstance(args, str) else " ".join(args)
    settings[key] = args + " --features system-libs"
    return settings


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    settings = _choose_libs(config_settings)
    return maturin.build_wheel(wheel_directory, settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    settings = _choose_libs(config_settings)
    return maturin.build_editable(wheel_directory, settings, metadata_directory)
