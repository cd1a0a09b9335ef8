#!/usr/bin/env python3
"""Writes racepred's man page and shell completions from its own help texts.

    help_docs.py RACEPRED --man racepred.1 --bash racepred.bash --zsh _racepred

The build runs it after linking racepred, so the man page and the completions always list the
subcommands, options and choices the binary has. Everything comes from `racepred --help`,
`racepred --version` and `racepred SUBCOMMAND --help` (CLI11's layout); the engine names come
from `racepred engines`.
"""
import argparse
import re
import subprocess
import sys


def run(*cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"help_docs.py: {' '.join(cmd)} failed with {out.returncode}:\n{out.stderr}")
    return out.stdout


class Option:
    def __init__(self, names, value, text):
        self.names = names  # ['-e', '--engine']
        self.value = value  # 'ENGINE[,ENGINE...] ...', '' for flags
        self.text = text
        m = re.search(r"\{([^}]*)\}", value)
        self.choices = m.group(1).split(",") if m else []


class Command:
    def __init__(self, name, help_text):
        self.name = name
        self.summary = ""
        self.details = []  # the description's lines after the first, as written
        self.usage = ""
        self.positionals = []  # (name, text)
        self.options = []
        self.subcommands = []  # (name, summary)
        self.epilog = []
        self.parse(help_text)

    def parse(self, text):
        lines = text.rstrip("\n").split("\n")
        section = "summary"
        entry = None  # the option/positional whose text continues on the next lines
        for line in lines:
            if line.startswith("Usage:"):
                self.usage = re.sub(r"^\S*racepred", "racepred", line[len("Usage: "):])
                section = "after-usage"
                continue
            if line in ("Positionals:", "Options:", "Subcommands:"):
                section = line[:-1].lower()
                entry = None
                continue
            if section == "summary":
                if self.summary:
                    self.details.append(line)
                else:
                    self.summary = line.strip()
            elif section in ("positionals", "options", "subcommands"):
                if not line.strip():
                    section = "epilog"
                    continue
                if not line.startswith("  "):
                    section = "epilog"
                    self.epilog.append(line)
                    continue
                head, _, rest = line[2:].partition("  ")
                if line.startswith(" " * 30) or not head.strip():
                    # a continuation of the previous entry's text
                    if entry is not None:
                        entry[-1] = (entry[-1] + " " + line.strip()).strip()
                    continue
                head = head.strip()
                rest = rest.strip()
                if section == "options":
                    spec, _, value = head.partition(" ")
                    names = [n for n in spec.split(",") if n.startswith("-")]
                    entry = [names, value.strip(), rest]
                    self.options.append(entry)
                elif section == "positionals":
                    name, _, value = head.partition(" ")
                    entry = [name, value.strip(), rest]
                    self.positionals.append(entry)
                else:
                    entry = [head, rest]
                    self.subcommands.append(entry)
            elif section != "after-usage" or line.strip():
                if section == "after-usage":
                    section = "epilog"
                self.epilog.append(line)
        self.options = [Option(*o) for o in self.options]
        while self.epilog and not self.epilog[-1].strip():
            self.epilog.pop()
        while self.epilog and not self.epilog[0].strip():
            self.epilog.pop(0)


def roff(text):
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return re.sub(r"^([.'])", r"\\&\1", text, flags=re.M)


def man_page(version, top, commands):
    footer = set(top.epilog)
    out = ['.\\" -*- coding: UTF-8 -*-', f'.TH RACEPRED 1 "" "{roff(version)}" "User Commands"',
           ".SH NAME", f"racepred \\- {roff(top.summary.split(': ', 1)[-1])}",
           ".SH SYNOPSIS",
           ".B racepred",
           ".I COMMAND",
           "[\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]",
           ".br",
           ".B racepred-cc",
           "|",
           ".B racepred-c++",
           "\\fICOMPILER-ARGUMENTS\\fR",
           ".SH DESCRIPTION",
           "racepred predicts data races and deadlocks from one recorded run of a concurrent "
           "program: the races of every valid reordering of the run, including those the observed "
           "schedule hid. Programs are built with the compiler wrappers \\fBracepred\\-cc\\fR "
           "and \\fBracepred\\-c++\\fR (gcc or clang with ThreadSanitizer's instrumentation, "
           "linked against racepred's recording runtime), recorded with \\fBracepred record\\fR "
           "and analysed with \\fBracepred analyze\\fR.",
           ".SH COMMANDS"]
    for c in commands:
        out.append(f".SS racepred {roff(c.name)}")
        out.append(roff(c.summary))
        if c.details:
            out += [".nf"] + [roff(line.rstrip()) for line in c.details] + [".fi"]
        out += [".PP", ".B Usage:", roff(c.usage)]
        for name, value, text in c.positionals:
            out += [".TP", f"\\fI{roff(name)}\\fR", roff(text)]
        for o in c.options:
            if o.names == ["-h", "--help"]:
                continue
            head = ", ".join(f"\\fB{roff(n)}\\fR" for n in o.names)
            if o.value:
                head += f" \\fI{roff(o.value)}\\fR"
            out += [".TP", head, roff(o.text)]
        epilog = [line for line in c.epilog if line not in footer]
        if epilog:
            out += [".PP", ".nf"] + [roff(line) for line in epilog] + [".fi"]
    out += [".SH EXIT STATUS",
            "0 when nothing was reported, 1 when a data race, a deadlock or a program failure "
            "was reported, 2 on a usage or input error (each command's text above says what "
            "it reports).",
            ".SH ENVIRONMENT",
            "\\fBNO_COLOR\\fR turns colour off where a command colours its output. The recording "
            "runtime's settings (\\fBRACEPRED_*\\fR variables of the recorded program) are listed "
            "under \\fBracepred record\\fR.",
            ".SH SEE ALSO",
            "The documents under /usr/share/doc/racepred and the project's docs/ directory.",
            ""]
    return "\n".join(out)


def bash_completion(top, commands, engines):
    subs = " ".join(c.name for c in commands)
    lines = ["# bash completion for racepred (written by scripts/help_docs.py from its help texts)",
             "_racepred() {",
             "  local cur prev cmd i",
             "  cur=${COMP_WORDS[COMP_CWORD]}",
             "  prev=${COMP_WORDS[COMP_CWORD-1]}",
             "  cmd=",
             "  for ((i = 1; i < COMP_CWORD; i++)); do",
             "    case ${COMP_WORDS[i]} in -*) ;; *) cmd=${COMP_WORDS[i]}; break ;; esac",
             "  done",
             "  if [[ -z $cmd ]]; then",
             f"    COMPREPLY=($(compgen -W '{subs} --help --version' -- \"$cur\"))",
             "    return",
             "  fi",
             "  case $cmd in"]
    for c in commands:
        opts = " ".join(n for o in c.options for n in o.names)
        lines.append(f"    {c.name})")
        lines.append("      case $prev in")
        for o in c.options:
            pattern = "|".join(o.names)
            if o.choices:
                lines.append(f"        {pattern}) COMPREPLY=($(compgen -W '{' '.join(o.choices)}' "
                             "-- \"$cur\")); return ;;")
            elif "engine" in " ".join(o.names):
                lines.append(f"        {pattern}) COMPREPLY=($(compgen -W '{' '.join(engines)}' "
                             "-- \"${cur##*,}\")); return ;;")
            elif o.value:
                lines.append(f"        {pattern}) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;")
        lines.append("      esac")
        lines.append(f"      if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '{opts}' -- \"$cur\"))")
        lines.append("      else COMPREPLY=($(compgen -f -- \"$cur\")); fi")
        lines.append("      ;;")
    lines += ["  esac", "}", "complete -o filenames -F _racepred racepred", ""]
    return "\n".join(lines)


def zsh_quote(text):
    text = text.replace("'", "'\\''").replace("[", "\\[").replace("]", "\\]").replace(":", "\\:")
    return text


def zsh_completion(top, commands, engines):
    lines = ["#compdef racepred",
             "# zsh completion for racepred (written by scripts/help_docs.py from its help texts)",
             "_racepred() {",
             "  local -a commands",
             "  commands=("]
    for c in commands:
        lines.append(f"    '{c.name}:{zsh_quote(c.summary[:70])}'")
    lines += ["  )",
              "  if (( CURRENT == 2 )); then",
              "    _describe -t commands 'racepred command' commands",
              "    return",
              "  fi",
              "  local cmd=${words[2]}",
              "  shift words; (( CURRENT-- ))",
              "  case $cmd in"]
    for c in commands:
        lines.append(f"    {c.name})")
        lines.append("      _arguments -s \\")
        for o in c.options:
            summary = zsh_quote(o.text.split(". ")[0][:60])
            names = o.names
            spec = names[0] if len(names) == 1 else "{" + ",".join(names) + "}"
            excl = "" if len(names) == 1 else "(" + " ".join(names) + ")"
            if o.choices:
                action = f":value:({' '.join(o.choices)})"
            elif "engine" in " ".join(names):
                action = f":engine:_values -s , engine {' '.join(engines)}"
            elif o.value:
                action = ":value:_files"
            else:
                action = ""
            if len(names) == 1:
                lines.append(f"        '{spec}[{summary}]{action}' \\")
            else:
                lines.append(f"        '{excl}'{spec}'[{summary}]{action}' \\")
        lines.append("        '*:file:_files'")
        lines.append("      ;;")
    lines += ["  esac", "}", "_racepred \"$@\"", ""]
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("racepred")
    p.add_argument("--man")
    p.add_argument("--bash")
    p.add_argument("--zsh")
    args = p.parse_args()
    version = run(args.racepred, "--version").strip()
    top = Command("", run(args.racepred, "--help"))
    if not top.subcommands:
        sys.exit("help_docs.py: `racepred --help` lists no subcommands")
    commands = [Command(name, run(args.racepred, name, "--help")) for name, _ in top.subcommands]
    engines = [line.split()[0] for line in run(args.racepred, "engines").splitlines()
               if line.strip() and not line.startswith(" ")]
    for path, text in ((args.man, lambda: man_page(version, top, commands)),
                       (args.bash, lambda: bash_completion(top, commands, engines)),
                       (args.zsh, lambda: zsh_completion(top, commands, engines))):
        if path:
            with open(path, "w") as f:
                f.write(text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
