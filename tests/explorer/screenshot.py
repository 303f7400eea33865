#!/usr/bin/env python3
"""A screenshot of an explorer page at a clock (for the docs' pictures):

    tests/explorer/screenshot.py PAGE.html OUT.png CLOCK [PE [PACKET_TYPE]]

PE selects that PE's units in the side panel; PACKET_TYPE clicks the first packet of that
type in flight, to show its panel."""
import os
import sys

import pages


def main():
    page, out, clock = sys.argv[1], sys.argv[2], int(sys.argv[3])
    why = pages.browser_missing()
    if why:
        sys.exit(why)
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = pages.launch(p)
        tab = browser.new_page(viewport={"width": 1400, "height": 1050})
        tab.goto("file://" + os.path.abspath(page))
        tab.wait_for_selector("body[data-ready='1']", timeout=120000)
        tab.evaluate(f"emx.setTime({clock})")
        if len(sys.argv) > 4:
            tab.click(f"g.pe-box[data-pe='{sys.argv[4]}']")
        if len(sys.argv) > 5:
            tab.eval_on_selector(f"circle.pkt[data-type='{sys.argv[5]}']", "e => emx.selectPacket(+e.dataset.pk)")
        tab.screenshot(path=out)
        browser.close()


if __name__ == "__main__":
    main()
