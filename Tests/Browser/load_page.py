#!/usr/bin/env python3
"""Loads a page in headless Chromium and reports what a person's browser would do with it.

    load_page.py CHROMIUM PAGE.html SCREENSHOT.png [WIDTH HEIGHT]

Prints one JSON object:
  requests   every URL the page asked for besides itself (must be empty for a self-contained page)
  errors     console errors, uncaught exceptions, and browser log entries of level error (CSP refusals)
  charts     per svg[data-series]: its data-series/start/end, the section's data-key, and the polyline's
             points as the browser parsed them ([[x, y], ...]), plus the reset lines' x
  width      the document's scroll width at the given window width (a phone layout must not scroll sideways)
  smallestText  the smallest size any visible text is drawn at, in CSS pixels (an SVG's text scaled with
             its drawing), with that text
A screenshot of the whole page is written to SCREENSHOT.png.
"""
import json, os, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from devtools import Browser

chromium, page, screenshot = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
width = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
height = int(sys.argv[5]) if len(sys.argv) > 5 else 1400

browser = Browser(chromium, width, height)
try:
    url = "file://" + page
    browser.navigate(url)
    time.sleep(0.3)  # let late console messages arrive
    browser.screenshot(screenshot)
    found = browser.evaluate("""JSON.stringify({
      width: document.documentElement.scrollWidth,
      smallestText: (() => {
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        let smallest = null;
        while (walker.nextNode()) {
          const node = walker.currentNode, element = node.parentElement;
          if (!node.textContent.trim() || !element || !element.getClientRects().length) continue;
          let size = parseFloat(getComputedStyle(element).fontSize);
          const svg = element.closest('svg');
          if (svg) size *= svg.getScreenCTM().a;
          if (!smallest || size < smallest.size) smallest = {size: size, text: node.textContent.trim().slice(0, 40)};
        }
        return smallest;
      })(),
      charts: [...document.querySelectorAll('svg[data-series]')].map(svg => ({
        series: svg.dataset.series, start: Number(svg.dataset.start), end: Number(svg.dataset.end),
        key: svg.closest('section') ? svg.closest('section').dataset.key : null,
        points: [...(svg.querySelector('polyline') ? svg.querySelector('polyline').points : [])].map(p => [p.x, p.y]),
        resets: [...svg.querySelectorAll('line.reset')].map(l => l.x1.baseVal.value)
      }))
    })""")
    browser.drain()
    requests, errors = browser.requests_and_errors(own=(url,))
    print(json.dumps({"requests": requests, "errors": errors, **found}))
finally:
    browser.close()
