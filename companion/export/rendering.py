"""The books' own rendering context: the templates, the translations and the filters a book
needs, without the web app's blueprints, database hooks or security.

The export worker makes its books in this context; the web app registers the same filters
(``text.terms``, ``text.bidi``) and the same Jinja settings, so a book is the same bytes
whichever process made it.
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask_babel import Babel
from flask_babel import gettext as _

from companion.base.languages import writes_vertically
from companion.base.paths import PACKAGE, resources
from companion.text import bidi, terms

TRANSLATIONS = PACKAGE / "translations"


def configure_jinja(app: Flask) -> None:
    """The template settings and names every book (and every page) is rendered with."""
    app.jinja_env.add_extension("jinja2.ext.i18n")
    app.jinja_env.policies["ext.i18n.trimmed"] = True
    app.jinja_env.globals["writes_vertically"] = writes_vertically
    app.jinja_env.globals["edition_name"] = edition_name
    bidi.init_app(app)
    terms.init_app(app)


def edition_name(edition: str) -> str:
    """An edition's name in the current locale; KeyError for an edition there is not."""
    names: dict[str, str] = {"story": _("Story edition"), "annotated": _("Annotated edition")}
    return names[edition]


def book_app(config: dict[str, Any]) -> Flask:
    """A Flask app that only renders books: its templates, static files and translations."""
    files = resources()
    app = Flask(
        "companion.export",
        template_folder=str(files.templates),
        static_folder=str(files.static),
    )
    app.config.update(BABEL_DEFAULT_LOCALE="en", BABEL_TRANSLATION_DIRECTORIES=str(TRANSLATIONS))
    app.config.update(config)
    Babel(app)  # each book forces its own language (``force_locale``)
    configure_jinja(app)
    return app
