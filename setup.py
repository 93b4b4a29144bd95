"""Build hook: the wheel carries the templates, static files and compiled catalogues.

In the repository ``templates/`` and ``static/`` sit at the top level, beside the package. A
wheel holds only the package, so the build copies both folders into ``companion/_bundle/`` and
compiles each ``messages.po`` into ``messages.mo`` there, after making the screen's faces
(``scripts/screen_fonts.py``) when the checkout has not made them yet. An editable install reads
the checkout itself and needs none of it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
BUNDLED = ("templates", "static")


class BuildWithBundle(build_py):
    """The usual build, plus the top-level folders and the compiled catalogues."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        package = Path(self.build_lib) / "companion"
        make_screen_faces(HERE / "static")
        for name in BUNDLED:
            target = package / "_bundle" / name
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(HERE / name, target)
        compile_catalogues(HERE / "companion" / "translations", package / "translations")


def make_screen_faces(static: Path) -> None:
    """The WOFF2 slices pages draw Japanese with (nothing to do when they are up to date)."""
    import sys

    sys.path.insert(0, str(HERE / "scripts"))
    import screen_fonts

    screen_fonts.build(static)


def compile_catalogues(source: Path, target: Path) -> None:
    """Write ``messages.mo`` beside each ``messages.po`` under ``target``."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for po in sorted(source.glob("*/LC_MESSAGES/messages.po")):
        mo = target / po.relative_to(source).with_suffix(".mo")
        mo.parent.mkdir(parents=True, exist_ok=True)
        with po.open("rb") as read:
            catalogue = read_po(read)
        with mo.open("wb") as written:
            write_mo(written, catalogue)


setup(cmdclass={"build_py": BuildWithBundle})
