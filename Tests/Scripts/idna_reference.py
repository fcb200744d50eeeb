"""Second reference for LockNamesTests' oracle test, for the inputs where Node and ICU disagree.

For each input it finds the host the simple way (scheme, slashes, userinfo, port and path cut
off; percent-decoded) and reports:
- what Python's `idna` package (UTS 46 mapping, nontransitional) makes of it;
- whether the name breaks the bidi rule as UTS 46 states it: when any label is right-to-left
  (a "Bidi domain name"), every label must meet the six conditions of RFC 5893 section 2. The
  `idna` package checks only right-to-left labels; this check is written here from the RFC,
  on Python's own Unicode data, independently of ICU.

Usage: python idna_reference.py INPUT.json OUTPUT.json
"""
import json
import re
import sys
import unicodedata
import urllib.parse

import idna


def raw_host(text):
    text = text.strip().replace("\t", "").replace("\n", "").replace("\r", "")
    scheme = re.match(r"^(https?|wss?|ftp):", text, re.IGNORECASE)
    if scheme:
        text = text[scheme.end():]
    text = text.lstrip("/\\")
    text = re.split(r"[/\\?#]", text, maxsplit=1)[0]
    text = text.rsplit("@", 1)[-1]
    if not text.startswith("["):
        text = text.split(":", 1)[0]
    return urllib.parse.unquote(text, errors="replace")


def meets_rfc5893(label):
    directions = [unicodedata.bidirectional(c) for c in label]
    if not directions:
        return True
    last = len(directions) - 1
    while last >= 0 and directions[last] == "NSM":
        last -= 1
    if last < 0:
        return False
    if directions[0] in ("R", "AL"):
        allowed = {"R", "AL", "AN", "EN", "ES", "CS", "ET", "ON", "BN", "NSM"}
        if any(d not in allowed for d in directions):
            return False
        if directions[last] not in ("R", "AL", "EN", "AN"):
            return False
        return not ("EN" in directions and "AN" in directions)
    if directions[0] == "L":
        allowed = {"L", "EN", "ES", "CS", "ET", "ON", "BN", "NSM"}
        if any(d not in allowed for d in directions):
            return False
        return directions[last] in ("L", "EN")
    return False


def breaks_bidi_rule(host):
    try:
        mapped = idna.uts46_remap(host, std3_rules=False, transitional=False)
    except Exception:
        return None
    labels = []
    for label in mapped.split("."):
        if label.lower().startswith("xn--"):
            try:
                label = label[4:].encode("ascii").decode("punycode")
            except Exception:
                return None
        labels.append(label)
    if not any(unicodedata.bidirectional(c) in ("R", "AL", "AN") for label in labels for c in label):
        return False
    return any(label and not meets_rfc5893(label) for label in labels)


def verdict(text):
    host = raw_host(text)
    answer = {"host": host, "bidi": breaks_bidi_rule(host)}
    try:
        answer["ascii"] = idna.encode(host, uts46=True, transitional=False, std3_rules=False).decode("ascii")
    except idna.IDNABidiError as error:
        answer["error"], answer["message"] = "bidi", str(error)
    except idna.InvalidCodepointContext as error:
        answer["error"], answer["message"] = "context", str(error)
    except idna.InvalidCodepoint as error:
        answer["error"], answer["message"] = "codepoint", str(error)
    except (idna.IDNAError, UnicodeError, ValueError) as error:
        answer["error"], answer["message"] = "idna", str(error)
    return answer


inputs = json.load(open(sys.argv[1], encoding="utf-8"))
json.dump([verdict(text) for text in inputs], open(sys.argv[2], "w", encoding="utf-8"))
