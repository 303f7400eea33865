"""Unbounded inputs (docs/reliability.md): a config, an "extends" base or a program must be
a regular file of bounded size. /dev/urandom and /dev/zero used to be read until memory ran
out; a FIFO hung emx for ever."""
import json
import os
import shutil
import tempfile
import unittest

from test_reliability import Case, emx, cli_elf


class Inputs(Case):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def test_device_as_config(self):
        r = emx("run", "--config", "/dev/urandom", cli_elf("tiny"), timeout=30)
        self.assertUsage(r, "emx: /dev/urandom: is a character device: a config file must be "
                            "a regular file")

    def test_device_as_extends_base(self):
        with open(self.path("c.json"), "w") as f:
            json.dump({"extends": "/dev/urandom"}, f)
        r = emx("run", "--config", self.path("c.json"), cli_elf("tiny"), timeout=30)
        self.assertUsage(r, self.path("c.json") + ': "extends" /dev/urandom: is a character '
                            "device: a config file must be a regular file")

    def test_device_as_program(self):
        for dev in ("/dev/zero", "/dev/null"):
            r = emx("run", dev, timeout=30)
            self.assertUsage(r, f"emx: bad program: {dev}: is a character device: a program "
                                "file must be a regular file")

    def test_fifo_as_config_or_program_does_not_hang(self):
        os.mkfifo(self.path("fifo"))
        # Before, emx waited for a writer: the timeout ends the test as an error.
        r1 = emx("run", "--config", self.path("fifo"), cli_elf("tiny"), timeout=30)
        r2 = emx("run", self.path("fifo"), timeout=30)
        self.assertUsage(r1, "is a FIFO: a config file must be a regular file")
        self.assertUsage(r2, "is a FIFO: a program file must be a regular file")

    def test_config_beyond_four_mib(self):
        with open(self.path("big.json"), "w") as f:
            f.write('{"name": "big", "pad": "' + "x" * (5 << 20) + '"}')
        r = emx("run", "--config", self.path("big.json"), cli_elf("tiny"), timeout=30)
        self.assertUsage(r, "big.json: is 5 MiB, more than the 4 MiB a config file may have")

    def test_program_beyond_its_bound(self):
        # 16 MiB or 4 times local memory, whichever is more: a 20 MiB file on 4 MiB.
        with open(cli_elf("tiny"), "rb") as f:
            data = f.read()
        with open(self.path("big.elf"), "wb") as f:
            f.write(data + b"\0" * (20 << 20))
        r = emx("run", self.path("big.elf"), timeout=30)
        self.assertUsage(r, "big.elf: is 20 MiB, more than the 16 MiB a program file may have")

    def test_files_of_proc_are_bounded_too(self):
        # Regular files whose size says 0 are read to the bound, not trusted.
        r = emx("run", "--config", "/proc/self/status", cli_elf("tiny"), timeout=30)
        self.assertUsage(r, "/proc/self/status: not valid JSON")


if __name__ == "__main__":
    unittest.main()
