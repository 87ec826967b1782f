# gdb script (gdb -batch -x mpich_observer.py --args PROGRAM ...): records, for each collective
# the program announces through tc_mark(), which MPIR_* algorithm function of the stripped
# libmpich ran first, by breakpoints at the entries mpich_locate.py found. Writes
#   MARK COLLECTIVE BYTES NP
#   ALG FUNCTION 0 0
# to $TC_LOG.<pid>. $TC_OFFSETS names the file of "NAME 0xOFFSET" lines.
import os

import gdb

log = None
pending = [False]


def out(line):
    global log
    if log is None:
        log = open("%s.%d" % (os.environ.get("TC_LOG", "tc"), gdb.selected_inferior().pid), "w")
    log.write(line + "\n")
    log.flush()


class Mark(gdb.Breakpoint):
    def stop(self):
        coll = gdb.parse_and_eval("coll").string()
        out("MARK %s %d %d" % (coll, int(gdb.parse_and_eval("bytes")), int(gdb.parse_and_eval("np"))))
        pending[0] = True
        return False


class Alg(gdb.Breakpoint):
    def __init__(self, spec, name):
        super().__init__(spec, internal=True)
        self.name = name

    def stop(self):
        if pending[0]:
            out("ALG %s 0 0" % self.name)
            pending[0] = False
        return False


gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set print thread-events off")
gdb.execute("break main")
gdb.execute("run")
base = None
for line in gdb.execute("info proc mappings", to_string=True).splitlines():
    parts = line.split()
    if len(parts) >= 5 and "libmpich.so" in parts[-1] and int(parts[3], 16) == 0:
        base = int(parts[0], 16)
        break
if base is None:
    raise gdb.GdbError("libmpich.so is not mapped")
with open(os.environ["TC_OFFSETS"]) as f:
    for line in f:
        name, off = line.split()
        Alg("*%#x" % (base + int(off, 16)), name)
Mark("tc_mark", internal=True)
gdb.execute("delete 1")
gdb.execute("continue")
