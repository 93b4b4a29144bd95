"""Print the untranslated Japanese messages as a JSON list (plural ones as "singular||plural")."""

import json

from babel.messages.pofile import read_po

PO = "companion/translations/ja/LC_MESSAGES/messages.po"

with open(PO, "rb") as f:
    catalog = read_po(f)
missing = []
for m in catalog:
    if not m.id:
        continue
    strings = m.string if isinstance(m.string, tuple) else (m.string,)
    if not any(strings):
        key = "||".join(m.id) if isinstance(m.id, tuple) else m.id
        missing.append({"id": key, "where": sorted({loc[0] for loc in m.locations})})
print(json.dumps(missing, ensure_ascii=False, indent=1))
