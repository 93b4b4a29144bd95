"""The companion is released under the AGPL-3.0-or-later, says so in every form a packager reads,
lists the faces it bundles with their licences, runs only on dependencies whose licences allow
that, and offers its source to whoever uses a server (every page's footer links to it)."""

from __future__ import annotations

import fnmatch
import hashlib
import io
import re
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
FONTS = ROOT / "static" / "fonts"
# The MD5 digest licence scanners know the official text of the GNU AGPL version 3 by
# (gnu.org/licenses/agpl-3.0.txt, as EbookLib ships it too).
AGPL_MD5 = "73f1eb20517c55bf9493b7dd6e480788"
# Licences a work under the AGPL-3.0-or-later may be combined with (the FSF's list of
# GPLv3-compatible licences, by SPDX identifier).
COMPATIBLE = {
    "0BSD", "AGPL-3.0", "AGPL-3.0-only", "AGPL-3.0-or-later", "Apache-2.0", "BSD-2-Clause",
    "BSD-3-Clause", "CC0-1.0", "GPL-2.0-or-later", "GPL-3.0", "GPL-3.0-only", "GPL-3.0-or-later",
    "HPND", "ISC", "LGPL-2.1-or-later", "LGPL-3.0", "LGPL-3.0-only", "LGPL-3.0-or-later",
    "LGPL-2.1", "LGPL-2.1-only", "MIT", "MIT-0", "MIT-CMU", "MPL-2.0", "PSF-2.0", "Python-2.0",
    "Unlicense", "ZPL-2.1", "public-domain",
}  # fmt: skip
# What older packages say in their classifiers or licence field, by SPDX identifier.
CLASSIFIERS = {
    "MIT License": "MIT",
    "BSD License": "BSD-3-Clause",
    "Apache Software License": "Apache-2.0",
    "GNU Affero General Public License v3 or later (AGPLv3+)": "AGPL-3.0-or-later",
    "GNU General Public License v2 or later (GPLv2+)": "GPL-2.0-or-later",
    "GNU Lesser General Public License v2 or later (LGPLv2+)": "LGPL-2.1-or-later",
    "GNU Lesser General Public License v3 (LGPLv3)": "LGPL-3.0-only",
    "Mozilla Public License 2.0 (MPL 2.0)": "MPL-2.0",
    "Python Software Foundation License": "PSF-2.0",
    "Public Domain": "public-domain",
    "ISC License (ISCL)": "ISC",
    "Zope Public License": "ZPL-2.1",
}
TEXTS = {
    "Redistribution and use in source and binary forms": "BSD-3-Clause",
    "Apache License, Version 2.0": "Apache-2.0",
    "GNU Affero General Public License": "AGPL-3.0-or-later",
    "MIT": "MIT",
}


def compatible(expression: str) -> bool:
    """Whether an SPDX expression allows combining with the AGPL-3.0-or-later."""
    expression = expression.strip()
    if " OR " in expression:
        return any(compatible(part) for part in expression.split(" OR "))
    if " AND " in expression:
        return all(compatible(part) for part in expression.split(" AND "))
    return expression.strip("()") in COMPATIBLE


def licences_of(dist: metadata.Distribution) -> list[str]:
    """What a package says its licence is, as SPDX expressions (any one of them may be taken)."""
    meta = dist.metadata
    if meta.get("License-Expression"):
        return [str(meta["License-Expression"])]
    said = [
        CLASSIFIERS[c.split(" :: ")[-1]]
        for c in meta.get_all("Classifier") or []
        if c.startswith("License ::") and c.split(" :: ")[-1] in CLASSIFIERS
    ]
    text = str(meta.get("License") or "")
    said += [spdx for words, spdx in TEXTS.items() if words in text]
    if text.strip() in COMPATIBLE:
        said.append(text.strip())
    return said


def runtime_distributions() -> dict[str, metadata.Distribution]:
    """Every package the companion runs on, with its optional extras, found from its metadata."""
    found: dict[str, metadata.Distribution] = {}
    wanted = [Requirement(r) for r in metadata.requires("ijinsho-companion") or []]
    extras = ("", "postgres", "vertical")
    wanted = [
        r for r in wanted
        if r.marker is None or any(r.marker.evaluate({"extra": e}) for e in extras)
    ]  # fmt: skip
    while wanted:
        requirement = wanted.pop()
        name = requirement.name.lower().replace("_", "-")
        if name in found:
            continue
        try:
            dist = metadata.distribution(requirement.name)
        except metadata.PackageNotFoundError:
            continue  # not for this platform or Python (its marker said so)
        found[name] = dist
        for raw in dist.requires or []:
            nested = Requirement(raw)
            if nested.marker is None or nested.marker.evaluate({"extra": ""}):
                wanted.append(nested)
    return found


def test_the_licence_is_the_agpl_version_3_as_published() -> None:
    text = (ROOT / "LICENSE").read_bytes()
    assert text.lstrip().startswith(b"GNU AFFERO GENERAL PUBLIC LICENSE")
    assert hashlib.md5(text).hexdigest() == AGPL_MD5


def test_the_package_metadata_names_the_licence_and_its_files() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "AGPL-3.0-or-later"
    assert {"LICENSE", "THIRD-PARTY.md"} <= set(project["license-files"])
    assert any(c.startswith("Framework :: Flask") for c in project["classifiers"])
    installed = metadata.metadata("ijinsho-companion")
    assert installed["License-Expression"] == "AGPL-3.0-or-later"
    files = installed.get_all("License-File") or []
    assert "LICENSE" in files and "static/fonts/LICENSE-IPA.txt" in files


def test_every_bundled_face_is_listed_with_its_licence() -> None:
    listed = (ROOT / "THIRD-PARTY.md").read_text()
    reuse = tomllib.loads((ROOT / "REUSE.toml").read_text())["annotations"]
    for face in FONTS.iterdir():
        if face.suffix.lower() not in (".ttf", ".otf", ".woff", ".woff2"):
            continue
        assert f"`{face.stem}." in listed, f"{face.name} is not in THIRD-PARTY.md"
        covering = [
            a for a in reuse
            if a.get("precedence") == "override"
            and any(fnmatch.fnmatch(f"static/fonts/{face.name}", p) for p in a["path"])
        ]  # fmt: skip
        assert len(covering) == 1, face.name
        text = FONTS / next(p for p in covering[0]["path"] if "LICENSE" in p).split("/")[-1]
        assert text.is_file() and text.name in listed


def test_every_runtime_dependency_has_a_licence_the_agpl_allows() -> None:
    found = runtime_distributions()
    assert {"flask", "weasyprint", "ebooklib", "gunicorn"} <= set(found)
    refused = {
        name: licences_of(dist)
        for name, dist in found.items()
        if not any(compatible(said) for said in licences_of(dist))
    }
    assert refused == {}, f"licences not known to be compatible with the AGPL: {refused}"


@pytest.mark.parametrize(
    ("expression", "allowed"),
    [("MIT", True), ("Apache-2.0 OR BSD-3-Clause", True), ("MIT AND PSF-2.0", True),
     ("GPL-2.0-only", False), ("SSPL-1.0", False), ("MIT AND GPL-2.0-only", False),
     ("BUSL-1.1", False), ("CC-BY-NC-4.0", False)],
)  # fmt: skip
def test_the_compatibility_check_refuses_what_the_agpl_cannot_take(
    expression: str, allowed: bool
) -> None:
    assert compatible(expression) is allowed


def test_every_page_links_to_the_source(client: FlaskClient) -> None:
    page = client.get("/?lang=en").get_data(as_text=True)
    assert re.search(r'<a href="/source">Source code \(AGPL-3.0\)</a>', page)
    assert "ソースコード（AGPL-3.0）" in client.get("/?lang=ja").get_data(as_text=True)


def test_the_source_is_the_running_code_with_its_licence(client: FlaskClient) -> None:
    answer = client.get("/source")
    assert answer.status_code == 200 and answer.mimetype == "application/zip"
    with zipfile.ZipFile(io.BytesIO(answer.data)) as archive:
        names = archive.namelist()
        root = names[0].split("/")[0]
        assert (
            archive.read(f"{root}/companion/__init__.py")
            == (ROOT / "companion" / "__init__.py").read_bytes()
        )
        assert f"{root}/LICENSE" in names and f"{root}/THIRD-PARTY.md" in names
        assert f"{root}/templates/base.html" in names and f"{root}/SOURCE.txt" in names
    assert not [n for n in names if n.endswith((".ttf", ".otf", ".pyc", ".mo"))]
    again = client.get("/source", headers={"If-None-Match": answer.headers["ETag"]})
    assert again.status_code == 304


def test_an_operator_can_point_to_the_source_they_publish(tmp_path: Path) -> None:
    from conftest import make_app

    client = make_app(tmp_path, SOURCE_URL="https://code.example/our-companion").test_client()
    assert 'href="https://code.example/our-companion"' in client.get("/").get_data(as_text=True)
    moved = client.get("/source")
    assert moved.status_code == 302
    assert moved.headers["Location"] == "https://code.example/our-companion"


@pytest.mark.slow
def test_the_wheel_carries_the_licence_texts_its_metadata_names(this_wheel: Path) -> None:
    with zipfile.ZipFile(this_wheel) as wheel:
        names = wheel.namelist()
        (meta,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        text = wheel.read(meta).decode()
        info = meta.rsplit("/", 1)[0]
        assert "License-Expression: AGPL-3.0-or-later" in text
        assert "Classifier: Framework :: Flask" in text
        assert "Provides-Extra: vertical" in text and "Provides-Extra: postgres" in text
        assert re.search(r"^Requires-Dist: playwright.*extra == .vertical.", text, re.M)
        for licence in ("LICENSE", "THIRD-PARTY.md", "static/fonts/LICENSE-IPA.txt"):
            assert f"License-File: {licence}" in text
            assert f"{info}/licenses/{licence}" in names
