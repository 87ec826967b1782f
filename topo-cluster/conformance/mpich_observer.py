# gdb script (gdb -batch -x mpich_observer.py --args PROGRAM ...): records, for each collective
# the program announces through tc_mark(), which MPIR_* algorithm function of the stripped
# libmpich ran first, by breakpoints at the entries mpich_locate.py found. Writes
#   MARK COLLECTIVE BYTES NP
#   ALG FUNCTION CHUNK K [COMM]
# to $TC_LOG.<pid>. $TC_OFFSETS names the file of "NAME 0xOFFSET" lines.
#
# CHUNK and K are 0 but for MPICH 4.1's k-ary trees, whose arguments are read at the entry
# (x86-64 System V calling convention; MPICH 4.1 to 4.3: MPIR_Bcast_intra_tree(buffer, count,
# datatype, root, comm, tree_type, k, is_nb, errflag) and MPIR_Bcast_intra_pipelined_tree(...,
# tree_type, k, is_nb, chunk_size, recv_pre_posted, errflag)): K the branching factor, CHUNK
# the chunk size of the pipelined tree. A tree type other than k-ary (0) or a non-blocking
# tree is written into the function's name, so that it matches no expectation.
#
# COMM (with TC_COMMS=1), for the bcast, scatter, gather and all-to-all algorithms, is the
# communicator the algorithm runs on, as the program's tc_comm() describes it ("world", "node:SIZE" or
# "roots:SIZE"): MPICH runs a collective of a communicator spanning nodes on the node and
# node-roots sub-communicators it built, each taking its own branch of the file
# (comm_hierarchy=node, node_roots), and 4.1 and later build them on one machine too. The
# communicator is the algorithm's comm_ptr argument, whose first field is its handle (MPICH:
# "all objects have the handle as the first value"); tc_comm() is called from gdb, with the
# process stopped at the entry (gdb 13 fails to call a function on some x86-64 machines,
# "Couldn't write extended state status", which gdb 16 does not).
import os

import gdb

log = None
pending = [False]
# (name, chunk, k, comm_ptr) of a call stopped at so that its communicator is described
stopped = [None]


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
        if not pending[0]:
            return False
        pending[0] = False
        name, chunk, k = arguments(self.name)
        comm = comm_pointer(self.name) if os.environ.get("TC_COMMS") == "1" else None
        if comm is None:
            out("ALG %s %d %d" % (name, chunk, k))
            return False
        # a function cannot be called from here: stop, the main loop describes the communicator
        stopped[0] = (name, chunk, k, comm)
        return True


def int_at(expr):
    return int(gdb.parse_and_eval("(int)(%s)" % expr))


def arguments(name):
    """(name, chunk size, k) of the algorithm call stopped at its entry."""
    if name not in ("MPIR_Bcast_intra_tree", "MPIR_Bcast_intra_pipelined_tree"):
        return (name, 0, 0)
    # the 6th argument in r9, the 7th and later on the stack above the return address
    tree_type = int_at("$r9")
    k = int_at("*(int *)($rsp + 8)")
    is_nb = int_at("*(int *)($rsp + 16)")
    chunk = int_at("*(int *)($rsp + 24)") if name.endswith("pipelined_tree") else 0
    if tree_type != 0 or is_nb != 0:
        name = "%s(tree_type=%d,is_nb=%d)" % (name, tree_type, is_nb)
    return (name, chunk, k)


def comm_pointer(name):
    """The comm_ptr argument of a bcast, scatter, gather or all-to-all algorithm (MPICH 4.0 to
    4.3: bcast's 5th argument, scatter's and gather's 8th, all-to-all's 7th), else None."""
    if name.startswith("MPIR_Bcast_intra_"):
        return int(gdb.parse_and_eval("(long)$r8"))
    if name.startswith(("MPIR_Scatter_intra_", "MPIR_Gather_intra_")):
        return int(gdb.parse_and_eval("*(long *)($rsp + 16)"))
    if name.startswith("MPIR_Alltoall_intra_"):
        return int(gdb.parse_and_eval("*(long *)($rsp + 8)"))
    return None


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
while True:
    gdb.execute("continue")
    if stopped[0] is None or gdb.selected_inferior().pid == 0:
        break  # the program ended (or stopped for another reason: gdb -batch then kills it)
    name, chunk, k, comm = stopped[0]
    stopped[0] = None
    handle = int_at("*(int *)%d" % comm)
    desc = gdb.parse_and_eval("tc_comm(%d)" % handle).string()
    out("ALG %s %d %d %s" % (name, chunk, k, desc))
