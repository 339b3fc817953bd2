#!/usr/bin/env python3
"""Parses the CI examples (GitHub Actions workflow, GitLab CI file) with a real YAML parser,
checks their structure, and prints what the CI examples test checks, as JSON: every
stampede command (loadgen, fakeprovider) in their shell steps, split into words the way the
shell would, with the artifact and JUnit paths of its job.

usage: check_ci_yaml.py FILE.yml...
Exit 1 with a message naming the file when one is not valid YAML or not the expected shape.
"""
import json
import os
import shlex
import sys

import yaml

PROGRAMS = {"loadgen", "fakeprovider"}
OPERATORS = {";", "&&", "||", "|", "&", "(", ")", ";;", "$(", "`"}
KEYWORDS = {"do", "then", "else", "if", "while", "until", "!", "time", "exec"}
GITLAB_RESERVED = {"stages", "variables", "default", "include", "workflow", "image", "services",
                   "before_script", "after_script", "cache"}


def fail(path, message):
    print(f"{path}: {message}")
    sys.exit(1)


def commands_in(script):
    """Every simple command of a shell script, as its words; redirections dropped."""
    text = script.replace("\\\n", " ")
    found = []
    for line in text.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        words, skip_next = [], False
        for token in list(lexer) + [";"]:
            if skip_next:
                skip_next = False
                continue
            if token in OPERATORS or token.endswith("("):
                if words:
                    found.append(words)
                words = []
            elif set(token) <= set("<>&|;") and token.strip("<>&"):
                continue
            elif set(token) <= set("<>&"):
                skip_next = True  # a redirection and its target
                if token.startswith(">") and words and words[-1] in ("1", "2"):
                    words.pop()  # the descriptor of 2>&1, which the lexer splits off
            else:
                words.append(token)
    # A command's name follows shell keywords and variable assignments.
    stripped = []
    for words in found:
        while words and (words[0] in KEYWORDS or "=" in words[0] and not words[0].startswith("-")):
            words = words[1:]
        if words:
            stripped.append(words)
    return stripped


def stampede_commands(path, job, scripts, artifacts, junit):
    out = []
    for script in scripts:
        if not isinstance(script, str):
            fail(path, f"job {job}: a script step is not a string: {script!r}")
        for words in commands_in(script):
            program = os.path.basename(words[0])
            if program in PROGRAMS:
                out.append({"file": path, "job": job, "program": program, "argv": words[1:],
                            "artifacts": artifacts, "junit": junit})
    return out


def github(path, doc):
    # YAML 1.1 reads the key `on` as true.
    if "jobs" not in doc or not ({"on", True} & set(doc)):
        fail(path, "a workflow needs `on` and `jobs`")
    out = []
    for name, job in doc["jobs"].items():
        if "runs-on" not in job or not isinstance(job.get("steps"), list):
            fail(path, f"job {name} needs runs-on and a list of steps")
        scripts, artifacts, junit = [], [], []
        for step in job["steps"]:
            if ("run" in step) == ("uses" in step):
                fail(path, f"job {name}: a step has either run or uses: {step}")
            if "run" in step:
                scripts.append(step["run"])
            elif step["uses"].startswith("actions/upload-artifact@"):
                if step.get("if") != "always()":
                    fail(path, f"job {name}: upload the artifacts `if: always()`, failed or not")
                artifacts += step["with"]["path"].split()
            elif "junit" in step["uses"]:
                junit += step["with"]["report_paths"].split()
        out += stampede_commands(path, name, scripts, artifacts, junit)
    return out


def gitlab(path, doc):
    def resolved(name):
        job = dict(doc[name])
        parents = job.pop("extends", [])
        for parent in [parents] if isinstance(parents, str) else parents:
            merged = resolved(parent)
            merged.update(job)
            job = merged
        return job

    out = []
    for name in doc:
        if name in GITLAB_RESERVED or name.startswith("."):
            continue
        job = resolved(name)
        if not isinstance(job.get("script"), list):
            fail(path, f"job {name} needs a script list")
        artifacts = job.get("artifacts", {})
        if artifacts.get("when") != "always":
            fail(path, f"job {name}: keep the artifacts `when: always`, failed or not")
        junit = artifacts.get("reports", {}).get("junit", [])
        out += stampede_commands(path, name, job.get("before_script", []) + job["script"],
                                 artifacts.get("paths", []),
                                 [junit] if isinstance(junit, str) else junit)
    return out


def main():
    found = []
    for path in sys.argv[1:]:
        try:
            with open(path) as f:
                doc = yaml.safe_load(f)
        except (OSError, yaml.YAMLError) as e:
            fail(path, f"not valid YAML: {e}")
        if not isinstance(doc, dict):
            fail(path, "not a YAML mapping")
        found += github(path, doc) if "jobs" in doc else gitlab(path, doc)
    print(json.dumps(found))


if __name__ == "__main__":
    main()
