"""The legacy game's pages: setting up a chronicle, the play page and its forms, the story, the
end, links, exports and imports, prompt packs.

``bp`` is the chronicle's blueprint (``/c/<token>``, from ``play``); the kept words and the links
page are blueprints nested in it, so their endpoints are ``chronicle.kept.*`` and
``chronicle.links.*``.
"""

from __future__ import annotations

from companion.web.chronicle import kept_words, links_view, play

bp = play.bp
bp.register_blueprint(kept_words.bp)
bp.register_blueprint(links_view.bp)

__all__ = ["bp"]
