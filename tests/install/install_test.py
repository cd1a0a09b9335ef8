#!/usr/bin/env python3
"""racepred as users install it (docs/INSTALL.md), used from the installed files only.

    install_test.py --build BUILD --source SRC --work DIR install   # cmake --install, then moved
    install_test.py --build BUILD --source SRC --work DIR deb       # cpack -G DEB, then dpkg -i into a root of its own

Either way the installed tree is moved (or installed by dpkg) somewhere the build never saw, and from
there: racepred runs; racepred-cc builds a racy and a race-free program that `racepred record`
records and `racepred analyze` judges right; a CMake project finds the package with
find_package(racepred) and its racepred_add_test() tests fail on the race and pass without it;
the man page renders and names every subcommand; the bash completion completes subcommands and
option values, and the zsh one parses. For the package, its control fields are checked too.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def must(cmd, **kw):
    out = run(cmd, **kw)
    if out.returncode != 0:
        sys.exit(f"FAILED: {' '.join(cmd)} (exit {out.returncode})\n{out.stdout}\n{out.stderr}")
    return out


def subcommands(racepred):
    help_text = must([racepred, "--help"]).stdout
    names, inside = [], False
    for line in help_text.splitlines():
        if line == "Subcommands:":
            inside = True
        elif inside and line.startswith("  ") and not line.startswith("   "):
            names.append(line.split()[0])
        elif inside and line and not line.startswith(" "):
            inside = False
    return names


def use_installed(prefix, source, work):
    """Everything a user does with an installed racepred, from PREFIX only."""
    racepred = os.path.join(prefix, "bin", "racepred")
    cc = os.path.join(prefix, "bin", "racepred-cc")
    env = dict(os.environ, PATH=os.path.join(prefix, "bin") + os.pathsep + os.environ["PATH"])
    check(run([racepred, "--version"]).stdout.startswith("racepred "), "racepred --version")

    # The wrappers find the runtime relative to themselves.
    racy_c = os.path.join(source, "tests", "recorder", "racy_counter.c")
    clean_c = os.path.join(source, "tests", "recorder", "mutex_counter.c")
    for name, src, expect in (("racy", racy_c, 1), ("clean", clean_c, 0)):
        exe = os.path.join(work, name)
        must([cc, "-O1", "-g", "-o", exe, src, "-lpthread"], env=env)
        trace = exe + ".rpt"
        must([racepred, "record", "-q", "-o", trace, "--", exe], env=env)
        out = run([racepred, "analyze", "-e", "fasttrack", trace], env=env)
        check(out.returncode == expect, f"analyze {name}: exit {out.returncode}, wanted {expect}"
              f"\n{out.stdout}{out.stderr}")
        if expect == 1:
            check("counter" in out.stdout, f"analyze {name} names the variable:\n{out.stdout}")

    # A CMake project that finds the installed package.
    proj = os.path.join(work, "project")
    os.makedirs(proj)
    shutil.copy(racy_c, proj)
    shutil.copy(clean_c, proj)
    with open(os.path.join(proj, "CMakeLists.txt"), "w") as f:
        f.write("""cmake_minimum_required(VERSION 3.16)
project(uses_racepred C)
find_package(racepred 0.1 CONFIG REQUIRED)
enable_testing()
add_executable(racy racy_counter.c)
add_executable(guarded mutex_counter.c)
racepred_add_test(NAME racy_under_racepred COMMAND racy ENGINES fasttrack)
racepred_add_test(NAME clean_under_racepred COMMAND guarded ENGINES fasttrack,lockset)
""")
    build = os.path.join(proj, "build")
    must(["cmake", "-S", proj, "-B", build, f"-DCMAKE_PREFIX_PATH={prefix}"], env=env)
    must(["cmake", "--build", build], env=env)
    ctest = run(["ctest", "--output-on-failure"], cwd=build, env=env)
    status = {}
    for line in ctest.stdout.splitlines():
        for name in ("racy_under_racepred", "clean_under_racepred"):
            if f" {name} " in line and ("Passed" in line or "Failed" in line):
                status[name] = "Passed" if "Passed" in line else "Failed"
    check(status == {"racy_under_racepred": "Failed", "clean_under_racepred": "Passed"},
          f"ctest: the racy test fails and the race-free one passes: {status}\n{ctest.stdout}")
    check("counter" in ctest.stdout, f"ctest: the race report is in the output\n{ctest.stdout}")

    # The man page renders without warnings and has a section per subcommand.
    man = glob.glob(os.path.join(prefix, "share", "man", "man1", "racepred.1*"))
    if check(len(man) == 1, f"one man page in {prefix}/share/man/man1"):
        if shutil.which("man"):
            page = run(["man", "--warnings", "-l", man[0]], env=dict(env, MANWIDTH="100"))
            check(page.returncode == 0 and not page.stderr.strip(),
                  f"man renders without warnings:\n{page.stderr}")
            text = page.stdout
        else:
            text = open(man[0]).read()
        for sub in subcommands(racepred):
            check(f"racepred {sub}" in text, f"the man page has `racepred {sub}`")

    # Completions: bash completes subcommands and option values; zsh's file parses.
    bash = os.path.join(prefix, "share", "bash-completion", "completions", "racepred")
    if check(os.path.exists(bash), "bash completion installed"):
        script = f"""source '{bash}'
COMP_WORDS=(racepred an); COMP_CWORD=1; _racepred; echo "${{COMPREPLY[*]}}"
COMP_WORDS=(racepred analyze --format ''); COMP_CWORD=3; _racepred; echo "${{COMPREPLY[*]}}"
COMP_WORDS=(racepred analyze -e fastt); COMP_CWORD=3; _racepred; echo "${{COMPREPLY[*]}}"
"""
        lines = must(["bash", "-c", script]).stdout.splitlines()
        check(lines[:1] == ["analyze annotate"], f"bash completes 'racepred an': {lines}")
        check(len(lines) > 1 and "json" in lines[1].split(), f"bash completes --format: {lines}")
        check(len(lines) > 2 and lines[2] == "fasttrack", f"bash completes engines: {lines}")
    zsh = os.path.join(prefix, "share", "zsh", "vendor-completions", "_racepred")
    if check(os.path.exists(zsh), "zsh completion installed") and shutil.which("zsh"):
        check(run(["zsh", "-n", zsh]).returncode == 0, "the zsh completion parses")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("mode", choices=["install", "deb"])
    args = p.parse_args()
    work = os.path.abspath(os.path.join(args.work, args.mode))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    if args.mode == "install":
        staged = os.path.join(work, "staged")
        must(["cmake", "--install", args.build, "--prefix", staged])
        prefix = os.path.join(work, "moved", "elsewhere")  # somewhere the build never named
        os.makedirs(os.path.dirname(prefix))
        os.rename(staged, prefix)
    else:
        pkgdir = os.path.join(work, "pkg")
        must(["cpack", "-G", "DEB", "-B", pkgdir,
              "--config", os.path.join(args.build, "CPackConfig.cmake")])
        debs = glob.glob(os.path.join(pkgdir, "*.deb"))
        if not check(len(debs) == 1, f"one .deb in {pkgdir}: {debs}"):
            return report()
        deb = debs[0]
        fields = must(["dpkg-deb", "-f", deb, "Package", "Architecture", "Depends"]).stdout
        check("Package: racepred" in fields, f"package name:\n{fields}")
        check("Architecture: amd64" in fields or "Architecture:" in fields, f"architecture:\n{fields}")
        for dep in ("libfmt9", "libzstd1", "liblz4-1", "gcc | clang", "binutils"):
            check(dep in fields, f"Depends names {dep}:\n{fields}")
        contents = must(["dpkg-deb", "-c", deb]).stdout
        for path in ("./usr/bin/racepred", "./usr/bin/racepred-cc", "./usr/bin/racepred-c++",
                     "./usr/lib/racepred/libracepred_rt.a", "./usr/include/racepred/racepred_rt.h",
                     "./usr/lib/cmake/racepred/racepredConfig.cmake",
                     "./usr/share/man/man1/racepred.1"):
            check(path in contents, f"the package has {path}")
        # Installed by dpkg itself, into a root and a package database of its own (the machine
        # running the test is not changed; the database is empty, so dependencies are named but
        # not there: --force-depends).
        root, admin = os.path.join(work, "root"), os.path.join(work, "dpkg")
        os.makedirs(root)
        for d in ("info", "updates", "triggers"):
            os.makedirs(os.path.join(admin, d))
        open(os.path.join(admin, "status"), "w").close()
        must(["dpkg", "--force-not-root", "--force-depends", f"--admindir={admin}",
              f"--instdir={root}", "-i", deb])
        status = must(["dpkg", f"--admindir={admin}", "-s", "racepred"]).stdout
        check("Status: install ok installed" in status, f"dpkg's status of racepred:\n{status}")
        prefix = os.path.join(root, "usr")
    use_installed(prefix, os.path.abspath(args.source), work)
    return report()


def report():
    for f in failures:
        print(f"FAILED: {f}", file=sys.stderr)
    if not failures:
        print("every check passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
