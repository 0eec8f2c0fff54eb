#!/usr/bin/env python3
"""Types the token into `aggctl serve`'s page with scripts off, as a person whose browser blocks scripts
would, and presses Enter: the token must not reach a URL or a request.

    token_form.py CHROMIUM URL TOKEN

Prints one JSON object: the URLs in the tab's history, the requests sent after Enter (URL and body), and
whether the form was on the page.
"""
import json, os, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from devtools import Browser

chromium, url, token = sys.argv[1], sys.argv[2], sys.argv[3]
browser = Browser(chromium, 800, 600)
try:
    browser.call("Emulation.setScriptExecutionDisabled", {"value": True}, session=browser.session)
    browser.navigate(url)
    root = browser.call("DOM.getDocument", session=browser.session)["root"]["nodeId"]
    field = browser.call("DOM.querySelector", {"nodeId": root, "selector": "#token input[name=token]"},
                         session=browser.session)["nodeId"]
    found = field != 0
    if found:
        browser.call("DOM.focus", {"nodeId": field}, session=browser.session)
        browser.call("Input.insertText", {"text": token}, session=browser.session)
        browser.events.clear()
        for kind in ("keyDown", "keyUp"):
            browser.call("Input.dispatchKeyEvent", {"type": kind, "key": "Enter", "code": "Enter",
                                                    "windowsVirtualKeyCode": 13, "text": "\r"},
                         session=browser.session)
        browser.drain(2.0)
    history = browser.call("Page.getNavigationHistory", session=browser.session)["entries"]
    sent = [{"url": m["params"]["request"]["url"], "body": m["params"]["request"].get("postData", "")}
            for m in browser.events if m.get("method") == "Network.requestWillBeSent"]
    print(json.dumps({"form": found, "history": [entry["url"] for entry in history], "sent": sent}))
finally:
    browser.close()
