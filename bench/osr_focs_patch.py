"""Patches copies of three focs-lab/rapid OSR files for bench/osr_focs.sh (see its comment).

osr_focs_patch.py DIR: DIR holds copies of OSREvent.java, POBuildReverse.java and
PartialOrder.java; writes the pairs change into DIR/OSREvent.java, the threads fix into
DIR/threads/POBuildReverse.java and the reach fix into DIR/reach/PartialOrder.java. Each change
is a line or two, found by the text it follows; a missing text stops with an error (another
version of focs-lab).
"""

import os
import sys


def patch(text, old, new, count=1, last=False):
    if text.count(old) != count:
        sys.exit(f"osr_focs_patch: '{old}' found {text.count(old)} times, expected {count}")
    if last:
        k = text.rfind(old)
        return text[:k] + new + text[k + len(old):]
    return text.replace(old, new)


def main():
    d = sys.argv[1]
    read = lambda name: open(os.path.join(d, name)).read()
    os.makedirs(os.path.join(d, "threads"), exist_ok=True)
    os.makedirs(os.path.join(d, "reach"), exist_ok=True)

    # pairs: print each race's pair (0-based event ids).
    hit = "if (checkRace(e1, e2, thId, this.getThread().getId(), state)) {"
    s = patch(read("OSREvent.java"), hit,
              hit + '\nSystem.out.println("PAIR " + e1.auxId + " " + e2.auxId);', count=2)
    open(os.path.join(d, "OSREvent.java"), "w").write(s)

    # threads: number a fork's or join's target when it is first named, as ParseStandard does.
    hit = "this.threadNameToNumEvents.put(threadId, threadNameToNumEvents.get(threadId) + 1);"
    s = patch(read("POBuildReverse.java"), hit, hit + """
String op = line.split("\\\\|")[1];
if (op.startsWith("fork(") || op.startsWith("join(")) {
  String target = op.substring(5, op.length() - 1);
  if (!this.threads.contains(target)) {
    this.threads.add(target);
    this.threadNameToId.put(target, this.threadNameToId.size());
    this.threadNameToNumEvents.put(this.threadNameToId.get(target), 0);
  }
}""")
    open(os.path.join(d, "threads", "POBuildReverse.java"), "w").write(s)

    # reach: -1 is "not reached": record a thread first reached through another, and do not
    # expand a thread that is not reached.
    s = read("PartialOrder.java")
    hit = "int right = osr.getClockIndex(curTh);\n"
    s = patch(s, hit, hit + "if (left == -1) continue;\n")
    hit = "if(curVal != -1 && curVal < ret.getClockIndex(to)) {"
    s = patch(s, hit,
              "if(curVal != -1 && (ret.getClockIndex(to) == -1 || curVal < ret.getClockIndex(to))) {",
              count=2, last=True)  # the first is in a comment
    open(os.path.join(d, "reach", "PartialOrder.java"), "w").write(s)


if __name__ == "__main__":
    main()
