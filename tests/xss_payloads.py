"""Cross-site scripting payloads for the tests, in the families of the OWASP XSS Filter Evasion
Cheat Sheet (script tags, event handlers, javascript: and data: URLs, encodings, case and
whitespace tricks, malformed tags, SVG and MathML, CSS, attribute breaking, Markdown links).

Every payload that runs sets ``window.__xss`` (or opens a dialog), which the browser test checks.
"""

from __future__ import annotations

ACTION = "window.__xss=1"
ENCODED_ACTION = "&#119;indow.__xss=1"

_TAGS_WITH_SRC = ("img", "image", "video", "audio", "input type=image", "embed", "source")
_HANDLERS = (
    "onerror",
    "onload",
    "onmouseover",
    "onfocus",
    "onanimationstart",
    "onpointerenter",
    "ontoggle",
    "onbegin",
    "onclick",
    "onbeforeprint",
)
_URL_SCHEMES = (
    "javascript:{a}",
    "JaVaScRiPt:{a}",
    "jav&#x09;ascript:{a}",
    "jav&#x0A;ascript:{a}",
    " &#14; javascript:{a}",
    "&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;{a}",
    "&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;{a}",
    "data:text/html;base64,PHNjcmlwdD53aW5kb3cuX194c3M9MTwvc2NyaXB0Pg==",
    "data:text/html,<script>{a}</script>",
    "vbscript:msgbox(1)",
    "javascript://%0a{a}",
    "java&#0;script:{a}",  # a raw NUL is refused at input; its entity still arrives
)


def _script_tags() -> list[str]:
    return [
        f"<script>{ACTION}</script>",
        f"<SCRIPT>{ACTION}</SCRIPT>",
        f"<ScRiPt>{ACTION}</sCrIpT>",
        f"<script type=text/javascript>{ACTION}</script>",
        f"<script/xss>{ACTION}</script>",
        f"<<script>{ACTION};//<</script>",
        f"<script>{ACTION}<!--",
        "<script src=//example.invalid/x.js></script>",
        f"<scr<script>ipt>{ACTION}</scr</script>ipt>",
        f'"><script>{ACTION}</script>',
        f"'><script>{ACTION}</script>",
        f"</textarea><script>{ACTION}</script>",
        f"</title><script>{ACTION}</script>",
        f"<script\x20type=module>{ACTION}</script>",
        f"<script>/*</script><script>*/{ACTION}</script>",
    ]


def _handlers() -> list[str]:
    out = [
        f'<{tag} src=x {handler}="{ACTION}">' for tag in _TAGS_WITH_SRC for handler in _HANDLERS[:3]
    ]
    out += [
        f'<svg onload="{ACTION}">',
        f"<svg/onload={ACTION}>",
        f'<body onload="{ACTION}">',
        f'<details open ontoggle="{ACTION}">',
        f'<div onmouseover="{ACTION}">hover</div>',
        f'<a onclick="{ACTION}">click</a>',
        f'<input autofocus onfocus="{ACTION}">',
        f'<select autofocus onfocus="{ACTION}"></select>',
        f'<textarea autofocus onfocus="{ACTION}"></textarea>',
        f'<marquee onstart="{ACTION}">m</marquee>',
        f'<iframe onload="{ACTION}"></iframe>',
        f'<object data=x onerror="{ACTION}"></object>',
        f'<style>@keyframes x{{}}</style><p style="animation-name:x" onanimationstart="{ACTION}">p</p>',
        f'<img src=x onerror="{ENCODED_ACTION}">',
        f"<img src=x onerror={ACTION}//>",
        f"<img src=x OnErRoR={ACTION}>",
        f"<img src=`x`onerror={ACTION}>",
        f'<img """><script>{ACTION}</script>">',
        f"<img src=x\tonerror={ACTION}>",
        f"<img src=x\nonerror={ACTION}>",
        f"<img/src=x/onerror={ACTION}>",
        f'<svg><animate onbegin="{ACTION}" attributeName=x dur=1s>',
        f'<svg><set onbegin="{ACTION}" attributeName=x to=1>',
        f'<math><maction actiontype="statusline" xlink:href="javascript:{ACTION}">x</maction></math>',
        f'<form><button formaction="javascript:{ACTION}">go</button></form>',
        f'<isindex action="javascript:{ACTION}" type=image>',
        f'<video><source onerror="{ACTION}"></video>',
        f'<audio src onerror="{ACTION}">',
        f'<body onpageshow="{ACTION}">',
        f'<x contenteditable onblur="{ACTION}">lose focus</x>',
    ]
    return out


def _urls() -> list[str]:
    out = []
    for scheme in _URL_SCHEMES:
        url = scheme.format(a=ACTION)
        out += [f'<a href="{url}">link</a>', f"[markdown link]({url})"]
    out += [
        f'<iframe src="javascript:{ACTION}"></iframe>',
        f'<embed src="javascript:{ACTION}">',
        f'<object data="javascript:{ACTION}"></object>',
        f'<meta http-equiv="refresh" content="0;url=javascript:{ACTION}">',
        f'<base href="javascript:{ACTION}//">',
        f'<link rel=stylesheet href="javascript:{ACTION}">',
        f'<form action="javascript:{ACTION}"><input type=submit></form>',
        f"![image](javascript:{ACTION})",
        f'![image](x" onerror="{ACTION})',
        f"<javascript:{ACTION}>",
        f"[a](javascript&colon;{ACTION})",
        f"[a](&#x6A;avascript:{ACTION})",
    ]
    return out


def _css_and_markup() -> list[str]:
    return [
        f'<div style="background:url(javascript:{ACTION})">css</div>',
        '<div style="width:expression(window.__xss=1)">ie</div>',
        "<style>body{background:url(javascript:window.__xss=1)}</style>",
        '<link rel="import" href="data:text/html,<script>window.__xss=1</script>">',
        f'<table background="javascript:{ACTION}">',
        f'<div id="x"></div><script>document.getElementById("x").innerHTML=1;{ACTION}</script>',
        f"<!--<img src=x onerror={ACTION}>-->",
        f"<![CDATA[<script>{ACTION}</script>]]>",
        f'<noscript><p title="</noscript><img src=x onerror={ACTION}>">',
        f'<svg><style><img src=x onerror="{ACTION}"></style></svg>',
        f"<math><mtext><table><mglyph><style><img src=x onerror={ACTION}>",
        f'<template><img src=x onerror="{ACTION}"></template>',
        f'<xmp><img src=x onerror="{ACTION}"></xmp>',
        f'<plaintext><img src=x onerror="{ACTION}">',
        f'"><img src=x onerror="{ACTION}">',
        f"' onmouseover='{ACTION}' '",
        f'" autofocus onfocus="{ACTION}" x="',
        f"`}}}} {{{{ {ACTION} }}}}",
        "{{ config }} {% raw %}{{7*7}}",
        f"\u003cscript\u003e{ACTION}\u003c/script\u003e",
        f"%3Cscript%3E{ACTION}%3C/script%3E",
        f"&lt;script&gt;{ACTION}&lt;/script&gt;",
        # NUL is refused at input (tests/attacks/test_attack_control_characters.py); a
        # zero-width space and a tab split the tag instead.
        f"<scri\u200bpt>{ACTION}</scri\tpt>",
        f'<a href="http://example.invalid" target=_blank rel=opener onclick="{ACTION}">x</a>',
        f'<svg><a xlink:href="javascript:{ACTION}"><text y=20>x</text></a></svg>',
        f'<svg><use href="data:image/svg+xml,<svg id=x onload={ACTION}>#x"/></svg>',
        f'<img srcset="x" onerror="{ACTION}">',
        f'<picture><source srcset=x><img src=x onerror="{ACTION}"></picture>',
        f"<dialog open><form method=dialog><button autofocus onfocus={ACTION}>b</button></form></dialog>",
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "<svg onload=confirm(1)>",
        "<body onload=prompt(1)>",
    ]


def payloads() -> list[str]:
    """Every payload, each distinct."""
    seen: dict[str, None] = {}
    for payload in _script_tags() + _handlers() + _urls() + _css_and_markup():
        seen.setdefault(payload, None)
    return list(seen)
