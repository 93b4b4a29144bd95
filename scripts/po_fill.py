"""Fill Japanese msgstrs from a JSON object {msgid: msgstr} (stdin), keeping everything else."""

import json
import sys

from babel.messages.pofile import read_po, write_po

PO = "companion/translations/ja/LC_MESSAGES/messages.po"

with open(PO, "rb") as f:
    catalog = read_po(f)
updates = json.load(sys.stdin)
unknown = [k for k in updates if k not in catalog]
for msgid, msgstr in updates.items():
    if msgid in catalog:
        catalog[msgid].string = msgstr
        catalog[msgid].flags.discard("fuzzy")
with open(PO, "wb") as f:
    write_po(f, catalog, width=100)
missing = [m.id for m in catalog if m.id and not m.string]
print(f"filled {len(updates) - len(unknown)}, unknown {len(unknown)}, untranslated {len(missing)}")
for m in missing:
    print("  untranslated:", m)
