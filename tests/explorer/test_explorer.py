"""The explorer (emx run --explore): the data the simulator records, and the page in a real
browser (headless Chromium through Playwright), against the text trace of the same run."""
import os
import re
import tempfile
import unittest

import pages

TMP = tempfile.mkdtemp(prefix="emx-explorer-")
SHOTS = os.environ.get("EMX_EXPLORER_SHOTS", TMP)


def fib_page():
    """ex_fib 5 4 on 2 PEs with the explorer and the text trace; (page, text-trace lines)."""
    page = os.path.join(TMP, "fib.html")
    if not os.path.exists(page):
        r = pages.run(page, "ex_fib", "5", "4", options=["--trace-text"])
        with open(page + ".log", "w") as f:
            f.write(r.stderr)
    with open(page + ".log") as f:
        return page, f.read().splitlines()


def first_line(lines, text):
    """(clock, line) of the first text-trace line containing `text`."""
    for l in lines:
        if text in l:
            return int(l.split()[0]), l
    raise AssertionError(f"no '{text}' in the text trace")


class Data(unittest.TestCase):
    """What the simulator records, checked against the text trace and the topology."""

    def test_packets_arrivals_and_matches_agree_with_the_text_trace(self):
        page, lines = fib_page()
        d = pages.data(page)
        self.assertEqual((d["program"], d["pes"], d["args"]), ("ex_fib", 2, ["5", "4"]))
        sends = [l for l in lines if " send " in l]
        packets = pages.table(d, "packets")
        self.assertEqual(len(packets), len(sends))
        clock, line = first_line(lines, "matched its partner")
        types = d["types"]
        # The first match in the cell events: same clock, PE and packet type.
        match = next(c for c in pages.table(d, "cells") if c[3] == 1)
        self.assertEqual(match[1], clock)
        self.assertEqual(f"PE {match[0]}", re.search(r"(PE \d+)\s+arrive", line).group(1))
        self.assertEqual(types[packets[match[4]][1]], "inv2l")
        # Its partner waited in the same slot before.
        wait = next(c for c in pages.table(d, "cells") if c[3] == 0 and c[2] == match[2] and c[0] == match[0])
        self.assertLess(wait[1], clock)

    def test_hops_follow_the_topology_from_sender_to_receiver(self):
        page, _ = fib_page()
        d = pages.data(page)
        topo = d["topology"]
        links, node_of = topo["links"], topo["endpoint_node"]
        hops = d["hops"]
        for p in pages.table(d, "packets"):
            src, dst, sent, arrive, first, n = p[2], p[3], p[6], p[9], p[13], p[14]
            self.assertGreater(n, 0)
            at, t = node_of[src], sent
            for k in range(first, first + n):
                out, start, end = hops[3 * k:3 * k + 3]
                self.assertGreaterEqual(start, t)
                self.assertGreater(end, start)
                if out < len(links):
                    self.assertEqual(links[out][0], at)
                    at = links[out][1]
                else:  # the ejection port into the receiver, last
                    self.assertEqual(out - len(links), dst)
                    self.assertEqual(k, first + n - 1)
                    self.assertEqual(end, arrive)
                t = end

    def test_input_buffer_pushes_and_pops_pair_up(self):
        page, lines = fib_page()
        d = pages.data(page)
        starts = [l for l in lines if "thread start" in l]
        for pe in range(2):
            ev = [b for b in pages.table(d, "buffer") if b[0] == pe]
            pushes = [b for b in ev if b[2] != 0]
            pops = [b for b in ev if b[2] == 0]
            self.assertLessEqual(len(pops), len(pushes))
            for push, pop in zip(pushes, pops):  # FIFO: the k-th pop takes the k-th push
                self.assertLessEqual(push[1], pop[1])
            # Every thread start but the first (the program's entry) took a token.
            self.assertEqual(len(pops), sum(f"PE {pe} " in l for l in starts) - 1)

    def test_window_and_pes_are_said(self):
        page = os.path.join(TMP, "fib-window.html")
        pages.run(page, "ex_fib", "5", "4", options=["--trace-pes", "1", "--trace-window", "1500:1900"])
        d = pages.data(page)
        self.assertEqual(d["traced_pes"], [1])
        self.assertEqual(d["window"], [1500, 1900])
        self.assertGreater(d["left_out"]["packets"] + d["left_out"]["threads"], 0)
        for p in pages.table(d, "packets"):
            self.assertTrue(p[2] == 1 or p[3] == 1)
        for t in pages.table(d, "threads"):
            self.assertEqual(t[0], 1)
            self.assertTrue(t[2] >= 1500 and t[1] < 1900)

    def test_source_lines_and_no_network_reference(self):
        page, _ = fib_page()
        d = pages.data(page)
        self.assertTrue(any(v.startswith("fib.c:") for v in d["lines"].values()))
        with open(page, encoding="utf-8") as f:
            text = f.read()
        self.assertNotRegex(text, r"(src|href)\s*=\s*[\"']?(https?:)?//")
        self.assertIn("default-src 'none'", text)


class Lessons(unittest.TestCase):
    """What the lessons (docs/lessons) tell a student to watch, on the pages' data."""

    def page(self, name, program, *args, pes=2, options=()):
        path = os.path.join(TMP, name + ".html")
        r = pages.run(path, program, *args, pes=pes, options=options)
        return pages.data(path), r.stdout

    def threads(self, d, pe):
        return [(d["strings"][t[3]], t) for t in pages.table(d, "threads") if t[0] == pe]

    def test_1_one_packet_fires_a_thread_that_waits_for_the_running_one(self):
        d, out = self.page("l1", "ex_invoke")
        self.assertIn("PE 1 computed 6 * 6 = 36", out)
        types = d["types"]
        spec = [p for p in pages.table(d, "packets") if types[p[1]] == "spec"]
        self.assertEqual(len(spec), 1)
        self.assertEqual((spec[0][2], spec[0][3], spec[0][4] & 0xffff), (0, 1, 6))
        on1 = self.threads(d, 1)
        k = next(i for i, (name, _) in enumerate(on1) if name == "square")
        square, before = on1[k][1], on1[k - 1][1]
        self.assertEqual(square[9], 1)  # a special handler
        self.assertGreater(square[1], spec[0][9])  # it waited in the input buffer...
        self.assertEqual(square[1], before[2])  # ...until the running thread ended

    def test_2_and_3_matching_and_deferred_reads(self):
        d, _ = self.page("l3", "ex_pipeline", "4", pes=3)
        cells = pages.table(d, "cells")
        deferred = next(c for c in cells if c[0] == 2 and c[3] == 3)
        woken = next(c for c in cells if c[0] == 2 and c[2] == deferred[2] and c[1] > deferred[1])
        self.assertEqual(woken[3], 4)  # written while the reader waited: the value goes to it
        self.assertEqual(d["types"][pages.table(d, "packets")[woken[4]][1]], "iwr")

    def test_4_remote_memory_without_and_with_threads(self):
        emx, out = self.page("l4", "ex_remote")
        prime, out_prime = self.page("l4p", "ex_remote", options=["--config", "emx-thread-write"])
        handlers = lambda d: [n for n, _ in self.threads(d, 1) if n.startswith("__emx_handler")]
        self.assertEqual(handlers(emx), [])
        self.assertEqual(handlers(prime), ["__emx_handler_twrite"] * 4 + ["__emx_handler_tread"])
        effects = {emx["strings"][p[12]] for p in pages.table(emx, "packets")
                   if emx["types"][p[1]] in ("syswr", "sysrd")}
        self.assertEqual(effects, {"memory written", "memory read, value sent"})
        clocks = [int(re.search(r"after (\d+) clocks", o).group(1)) for o in (out, out_prime)]
        self.assertLess(clocks[0], clocks[1])

    def test_5_hot_spot_queues_and_a_gap_empties_them(self):
        def latency(*args):
            d, out = self.page("l5-" + "-".join(args), "ex_traffic", *args, pes=16)
            lat = [p[9] - p[6] for p in pages.table(d, "packets") if d["types"][p[1]] == "syswr"]
            return sum(lat) / len(lat), int(re.search(r"after (\d+) clocks", out).group(1))
        spread, hot, gap = latency("0", "32", "0"), latency("1", "32", "0"), latency("1", "32", "20")
        self.assertGreater(hot[0], 4 * spread[0])  # contention: queues on the way to PE 0
        self.assertLess(gap[0], hot[0] / 4)  # the gap empties them
        self.assertLess(gap[1], 1.5 * hot[1])  # at a small cost: PE 0's port was the limit


@unittest.skipIf(pages.browser_missing(), pages.browser_missing() or "")
class Browser(unittest.TestCase):
    """The page in headless Chromium, opened from file:// with no network."""

    @classmethod
    def setUpClass(cls):
        from playwright.sync_api import sync_playwright
        cls.pw = sync_playwright().start()
        cls.browser = pages.launch(cls.pw)
        cls.page_file, cls.lines = fib_page()

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        cls.pw.stop()

    def open(self, path, viewport=(1400, 1000)):
        page = self.browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
        self.requests, self.errors = [], []
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.goto("file://" + os.path.abspath(path))
        page.wait_for_selector("body[data-ready='1']", timeout=60000)
        self.addCleanup(page.close)
        return page

    def clock(self, page):
        return int(page.get_attribute("#clock", "data-clock"))

    def visible_packets(self, page, selector="circle.pkt"):
        return page.eval_on_selector_all(
            selector, "els => els.filter(e => e.style.display !== 'none').map(e => e.dataset)")

    def test_loads_offline_and_draws_the_machine(self):
        page = self.open(self.page_file)
        self.assertEqual(self.requests, ["file://" + os.path.abspath(self.page_file)])
        self.assertEqual(self.errors, [])
        self.assertEqual(page.locator("g.pe-box").count(), 3)  # 2 PEs and the host
        d = pages.data(self.page_file)
        self.assertEqual(page.locator("circle.switch").count(), d["topology"]["nodes"])
        self.assertEqual(page.locator("path.link").count(), len(d["topology"]["links"]))
        self.assertIn("0.000 µs", page.inner_text("#clock"))
        page.screenshot(path=os.path.join(SHOTS, "fib-start.png"))

    def test_a_windowed_page_says_what_it_left_out(self):
        path = os.path.join(TMP, "fib-window-browser.html")
        pages.run(path, "ex_fib", "5", "4", options=["--trace-pes", "1", "--trace-window", "1500:1900"])
        page = self.open(path)
        notice = page.inner_text("#notice")
        for text in ("clocks 1500 to 1900", "--trace-window", "PE 1 of 2", "--trace-pes", "left out"):
            self.assertIn(text, notice)
        self.assertEqual(self.clock(page), 1500)
        self.assertEqual(page.get_attribute("#timeline", "data-rows"), "1")
        page.click("#first")
        page.click("#back")
        self.assertEqual(self.clock(page), 1500)  # the controls stay in the window

    def test_the_spill_area_shows_threads_that_overflowed_the_buffer(self):
        path = os.path.join(TMP, "fib-spill.html")
        pages.run(path, "ex_fib", "8", "3", pes=4, options=["--set", "pe.input_buffer.onchip_packets=1"])
        d = pages.data(path)
        spill = None
        for pe in range(4):  # a spilled thread still waiting one clock after it entered
            ev = [b for b in pages.table(d, "buffer") if b[0] == pe]
            pushes, pops = [b for b in ev if b[2] != 0], [b for b in ev if b[2] == 0]
            for k, b in enumerate(pushes):
                if b[2] == 2 and (k >= len(pops) or pops[k][1] > b[1] + 1):
                    spill = (pe, b[1] + 1)
                    break
            if spill:
                break
        self.assertIsNotNone(spill)
        page = self.open(path)
        page.fill("#goto", str(spill[1]))
        page.press("#goto", "Enter")
        page.click(f"g.pe-box[data-pe='{spill[0]}']")
        panel = page.inner_text("#pepanel")
        self.assertIn("(spilled)", panel)
        self.assertRegex(panel, r"Spill area \(memory\)\s+[1-9]\d* in it now")

    def test_stepping_reaches_the_first_match_at_the_text_traces_clock(self):
        clock, line = first_line(self.lines, "matched its partner")
        pe = int(re.search(r"PE (\d+)\s+arrive", line).group(1))
        page = self.open(self.page_file)
        seen = [0]
        while self.clock(page) < clock and len(seen) < 1000:
            page.click("#next")
            seen.append(self.clock(page))
        self.assertEqual(seen[-1], clock)  # stepping stops at every event's clock
        self.assertEqual(seen, sorted(seen))
        now = page.eval_on_selector_all("#events div.now", "els => els.map(e => e.textContent)")
        self.assertTrue(any(f"PE {pe} arrive inv2l" in l and "matched its partner" in l for l in now), now)
        shown = self.visible_packets(page, "circle.pkt[data-type='inv2l']")
        self.assertIn(str(pe), [p["dst"] for p in shown])
        # The page prints µs as the text trace does (an exact tie to even: 1553 -> 97.062).
        self.assertIn(f"{clock / 16:.3f} µs", page.inner_text("#clock"))
        # The PE's matching store: empty now, the operand waited just before.
        page.click(f"g.pe-box[data-pe='{pe}']")
        self.assertIn("Matching store: 0 operand(s)", page.inner_text("#pepanel"))
        page.click("#back")
        self.assertLess(self.clock(page), clock)
        self.assertEqual(self.clock(page), seen[-2])
        self.assertIn("Matching store: 1 operand(s) waiting", page.inner_text("#pepanel"))
        page.screenshot(path=os.path.join(SHOTS, "fib-match.png"))

    def test_clicking_a_packet_shows_its_words(self):
        sent, line = first_line(self.lines, "send   inv2l")
        m = re.search(r"PE (\d+)\s+send\s+inv2l\s+-> PE (\d+)\s+address (0x\w+) data (0x\w+)", line)
        page = self.open(self.page_file)
        page.fill("#goto", str(sent + 1))
        page.press("#goto", "Enter")
        circle = page.locator(f"circle.pkt[data-type='inv2l'][data-src='{m.group(1)}']")
        circle.first.click()
        self.assertEqual(page.inner_text("#pk-addr"), m.group(3))
        self.assertEqual(page.inner_text("#pk-data"), m.group(4))
        panel = page.inner_text("#packetpanel")
        self.assertIn(f"PE {m.group(1)} → PE {m.group(2)}", panel)
        self.assertIn("fib", panel)  # the sending thread
        self.assertIn("fib.c:", panel)  # and its source line

    def test_filters_hide_what_they_should(self):
        sent, line = first_line(self.lines, "send   inv2l")
        page = self.open(self.page_file)
        page.fill("#goto", str(sent + 1))
        page.press("#goto", "Enter")
        self.assertTrue(self.visible_packets(page, "circle.pkt[data-type='inv2l']"))
        page.uncheck("#types input[data-type='1']")  # inv2l
        self.assertFalse(self.visible_packets(page, "circle.pkt[data-type='inv2l']"))
        page.check("#types input[data-type='1']")
        # PE filter: only PE 0; packets between PE 1 and itself go, PE 1 is dimmed.
        page.fill("#fpes", "0")
        page.press("#fpes", "Enter")
        self.assertIn("dim", page.get_attribute("g.pe-box[data-pe='1']", "class"))
        for p in self.visible_packets(page):
            self.assertTrue(p["src"] == "0" or p["dst"] == "0")
        page.fill("#fpes", "")
        page.press("#fpes", "Enter")
        # Host console traffic: visible while a host packet flies, hidden when asked.
        host, _ = first_line(self.lines, "send   host")
        page.fill("#goto", str(host + 1))
        page.press("#goto", "Enter")
        self.assertTrue(self.visible_packets(page, "circle.pkt[data-type='host']"))
        page.check("#fhost")
        self.assertFalse(self.visible_packets(page, "circle.pkt[data-type='host']"))
        # A time window: the clock stays inside it.
        page.fill("#ffrom", "1000")
        page.press("#ffrom", "Enter")
        page.fill("#fto", "1200")
        page.press("#fto", "Enter")
        self.assertEqual(self.clock(page), 1200)
        page.click("#first")
        self.assertEqual(self.clock(page), 1000)

    def test_timeline_click_jumps_to_the_thread(self):
        d = pages.data(self.page_file)
        t = next(t for t in pages.table(d, "threads") if t[0] == 1 and t[2] - t[1] > 100)
        page = self.open(self.page_file)
        x, y = page.evaluate(f"emx.timelineXY(1, {(t[1] + t[2]) / 2})")
        page.click("#timeline", position={"x": x, "y": y})
        self.assertEqual(self.clock(page), t[1])
        self.assertIn("PE 1 at clock", page.inner_text("#pepanel"))
        self.assertIn("running", page.inner_text("#pepanel"))

    def test_other_topologies_draw(self):
        for topology in ("ring", "torus2d", "crossbar", "single_switch"):
            with self.subTest(topology=topology):
                path = os.path.join(TMP, f"hello-{topology}.html")
                pages.run(path, "ex_hello", pes=4, options=["--set", f"network.topology={topology}"])
                d = pages.data(path)
                page = self.open(path)
                self.assertEqual(self.errors, [])
                self.assertEqual(page.locator("g.pe-box").count(), 5)
                self.assertEqual(page.locator("circle.switch").count(), d["topology"]["nodes"])
                page.click("#play")
                page.wait_for_timeout(300)
                page.click("#play")
                self.assertGreater(self.clock(page), 0)


if __name__ == "__main__":
    unittest.main()
