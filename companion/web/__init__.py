"""The web app's pages, joined to the app in one place.

``shell`` is the kit every page shares, ``boards`` each card game's pictures and words,
``chronicle`` the legacy game's pages, ``tables`` the card tables, ``api`` the JSON API; this
module registers their blueprints and the hooks that join them (``docs/architecture.md``).
"""

from __future__ import annotations

from flask import Flask
from flask_wtf.csrf import CSRFProtect


def init_app(app: Flask, csrf: CSRFProtect) -> None:
    """Register every blueprint, the page hooks and the template globals the pages share."""
    from companion.web import api, chronicle, delete_view, tables
    from companion.web.chronicle import (
        expired_form,
        export_view,
        import_view,
        narrate,
        packs_view,
        setup_view,
        story_view,
    )
    from companion.web.shell import (
        ahead,
        main,
        ratelimit,
        render_cache,
        sealed_session,
        security,
        source,
    )

    render_cache.init_app(app)
    ahead.init_app(app)
    ratelimit.init_app(app)
    security.init_app(app, send_back=expired_form.send_back)
    sealed_session.init_app(app)
    source.init_app(app)
    app.jinja_env.globals["announce"] = narrate.announce
    app.jinja_env.globals["decision_mark"] = narrate.decision_mark
    blueprints = (
        main.bp,
        source.bp,
        setup_view.bp,
        packs_view.bp,
        chronicle.bp,
        story_view.bp,
        api.bp,
        export_view.bp,
        import_view.import_bp,
        delete_view.bp,
        tables.bp,
    )
    for blueprint in blueprints:
        app.register_blueprint(blueprint)
    for blueprint in api.BLUEPRINTS:
        csrf.exempt(blueprint)
