"""Fill Japanese msgstrs from a JSON object {msgid: msgstr} (stdin), keeping everything else.

Plural messages are keyed "singular||plural".
"""

import json
import sys

from babel.messages.pofile import read_po, write_po

PO = "companion/translations/ja/LC_MESSAGES/messages.po"

with open(PO, "rb") as f:
    catalog = read_po(f)
updates = json.load(sys.stdin)
by_key = {("||".join(m.id) if isinstance(m.id, tuple) else m.id): m for m in catalog if m.id}
unknown = [k for k in updates if k not in by_key]
for key, msgstr in updates.items():
    message = by_key.get(key)
    if message is not None:
        # Japanese has one plural form: msgstr[0] serves every count.
        message.string = (msgstr,) if isinstance(message.id, tuple) else msgstr
        message.flags.discard("fuzzy")
with open(PO, "wb") as f:
    write_po(f, catalog, width=100)
missing = [
    m.id
    for m in catalog
    if m.id and not any(m.string if isinstance(m.string, tuple) else [m.string])
]
print(f"filled {len(updates) - len(unknown)}, unknown {len(unknown)}, untranslated {len(missing)}")
for m in missing:
    print("  untranslated:", m)
