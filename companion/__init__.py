"""遺燼抄 companion: a journaling companion for a narrative legacy game, with two card games.

The package imports nothing itself, so a rules core loads without the web app: the factory is
``companion.app.create_app``, the version ``companion.base.__version__``.
"""
