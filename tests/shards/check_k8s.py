#!/usr/bin/env python3
"""A schema check of deploy/k8s/*.yaml, for want of a cluster to dry-run them against.

Usage: check_k8s.py MANIFEST_DIR HELP_DIR
HELP_DIR holds the binaries' --help texts: loadgen-run.txt, loadgen-merge.txt,
loadgen-report.txt, fakeprovider.txt. Prints one line per problem and exits 1 if there is
any; prints "k8s: N documents ok" and exits 0 otherwise.
"""
import glob
import json
import os
import re
import shlex
import sys

import yaml

API_VERSIONS = {
    "ConfigMap": "v1",
    "Service": "v1",
    "Pod": "v1",
    "PersistentVolumeClaim": "v1",
    "Secret": "v1",
    "Deployment": "apps/v1",
    "Job": "batch/v1",
}

problems = []


def problem(where, what):
    problems.append(f"{where}: {what}")


def flags_in_help(path):
    """Every long option a --help text lists (CLI11: '  -o,--out TEXT', '  --shard TEXT')."""
    with open(path, encoding="utf-8") as f:
        return set(re.findall(r"^\s+(?:-\w,)?(--[a-z0-9][a-z0-9-]*)", f.read(), re.M))


def check_flags(where, binary_args, helps):
    """binary_args: ['loadgen', 'run', '--x=1', ...] or ['fakeprovider', ...]."""
    if not binary_args:
        return
    binary = os.path.basename(binary_args[0])
    args = binary_args[1:]
    if binary == "loadgen":
        if not args:
            return problem(where, "loadgen without a subcommand")
        key = f"loadgen-{args[0]}"
        args = args[1:]
    elif binary == "fakeprovider":
        key = "fakeprovider"
    else:
        return
    if key not in helps:
        return problem(where, f"{key.replace('-', ' ')}: no such command")
    for a in args:
        if a.startswith("--"):
            flag = a.split("=", 1)[0]
            if flag not in helps[key]:
                problem(where, f"{key.replace('-', ' ')} does not accept {flag}")


def commands_of(container):
    """The binaries a container runs, as argument lists: its command+args, or each
    command of an 'sh -c' script."""
    argv = list(container.get("command") or []) + list(container.get("args") or [])
    if argv[:2] == ["sh", "-c"] and len(argv) == 3:
        return [shlex.split(part) for part in re.split(r"[;&|]+", argv[2]) if part.strip()]
    return [argv]


def check_pod_spec(where, spec, names, helps):
    containers = spec.get("containers") or []
    if not containers:
        problem(where, "no containers")
    volumes = {v.get("name"): v for v in spec.get("volumes") or []}
    for v in volumes.values():
        if "configMap" in v and v["configMap"].get("name") not in names["ConfigMap"]:
            problem(where, f"volume {v['name']}: no ConfigMap {v['configMap'].get('name')}")
        pvc = v.get("persistentVolumeClaim")
        if pvc and pvc.get("claimName") not in names["PersistentVolumeClaim"]:
            problem(where, f"volume {v['name']}: no PersistentVolumeClaim {pvc.get('claimName')}")
    for c in containers:
        cw = f"{where} container {c.get('name')}"
        for field in ("name", "image", "command"):
            if not c.get(field):
                problem(cw, f"no {field}")
        for m in c.get("volumeMounts") or []:
            if m.get("name") not in volumes:
                problem(cw, f"mounts {m.get('name')}, which is no volume of the pod")
        for e in c.get("env") or []:
            ref = (e.get("valueFrom") or {}).get("configMapKeyRef")
            if ref:
                data = names["ConfigMap"].get(ref.get("name"))
                if data is None or ref.get("key") not in data:
                    problem(cw, f"env {e['name']}: no key {ref.get('key')} in {ref.get('name')}")
        for argv in commands_of(c):
            check_flags(cw, argv, helps)
    return containers


def env_value(container, name):
    for e in container.get("env") or []:
        if e.get("name") == name:
            return e
    return None


def check_job(where, job, names, helps):
    spec = job.get("spec") or {}
    pod = (spec.get("template") or {}).get("spec") or {}
    if pod.get("restartPolicy") not in ("Never", "OnFailure"):
        problem(where, "a Job's pods need restartPolicy Never or OnFailure")
    containers = check_pod_spec(where, pod, names, helps)
    if spec.get("completionMode") != "Indexed":
        return
    completions, parallelism = spec.get("completions"), spec.get("parallelism")
    if not isinstance(completions, int) or completions < 1:
        problem(where, "an Indexed Job needs completions, the shard count")
    if completions != parallelism:
        problem(where, f"completions {completions} != parallelism {parallelism}: every shard "
                       "must run at once to start together")
    for c in containers:
        shards = env_value(c, "STAMPEDE_SHARDS")
        if not shards or str(shards.get("value")) != str(completions):
            problem(where, f"container {c.get('name')}: STAMPEDE_SHARDS must be {completions}")
        index = env_value(c, "JOB_COMPLETION_INDEX")
        path = (((index or {}).get("valueFrom") or {}).get("fieldRef") or {}).get("fieldPath", "")
        if "job-completion-index" not in path:
            problem(where, f"container {c.get('name')}: JOB_COMPLETION_INDEX must come from the "
                           "job-completion-index annotation")
        if not env_value(c, "STAMPEDE_START_AT") and not any(
                a.startswith("--start-at") for a in c.get("args") or []):
            problem(where, f"container {c.get('name')}: no --start-at (or STAMPEDE_START_AT)")


def check_deployment(where, d, names, helps):
    spec = d.get("spec") or {}
    selector = (spec.get("selector") or {}).get("matchLabels") or {}
    labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
    if not selector or any(labels.get(k) != v for k, v in selector.items()):
        problem(where, "spec.selector.matchLabels must match the template's labels")
    check_pod_spec(where, (spec.get("template") or {}).get("spec") or {}, names, helps)
    return labels


def check_configmap(where, cm):
    for key, value in (cm.get("data") or {}).items():
        if key.endswith(".json"):
            try:
                scenario = json.loads(value)
            except ValueError as e:
                problem(where, f"{key} is not JSON: {e}")
                continue
            if not isinstance(scenario.get("fleet"), dict):
                problem(where, f"{key}: no fleet section")


def main():
    manifest_dir, help_dir = sys.argv[1], sys.argv[2]
    helps = {os.path.basename(p)[:-4]: flags_in_help(p)
             for p in glob.glob(os.path.join(help_dir, "*.txt"))}
    docs = []
    for path in sorted(glob.glob(os.path.join(manifest_dir, "*.yaml"))):
        with open(path, encoding="utf-8") as f:
            for i, doc in enumerate(yaml.safe_load_all(f)):
                if doc is not None:
                    docs.append((f"{os.path.basename(path)}#{i}", doc))
    if not docs:
        problem(manifest_dir, "no manifests")
    names = {kind: {} for kind in API_VERSIONS}
    for where, doc in docs:
        kind = doc.get("kind")
        if kind not in API_VERSIONS:
            problem(where, f"unexpected kind {kind!r}")
            continue
        if doc.get("apiVersion") != API_VERSIONS[kind]:
            problem(where, f"{kind} needs apiVersion {API_VERSIONS[kind]}")
        name = (doc.get("metadata") or {}).get("name")
        if not name:
            problem(where, "no metadata.name")
        names[kind][name] = doc.get("data") or {}
    deployment_labels = []
    for where, doc in docs:
        kind = doc.get("kind")
        where = f"{where} {kind} {(doc.get('metadata') or {}).get('name')}"
        if kind == "Job":
            check_job(where, doc, names, helps)
        elif kind == "Deployment":
            deployment_labels.append(check_deployment(where, doc, names, helps))
        elif kind == "Pod":
            check_pod_spec(where, doc.get("spec") or {}, names, helps)
        elif kind == "ConfigMap":
            check_configmap(where, doc)
    for where, doc in docs:
        if doc.get("kind") != "Service":
            continue
        selector = (doc.get("spec") or {}).get("selector") or {}
        if not any(all(l.get(k) == v for k, v in selector.items()) for l in deployment_labels):
            problem(where, "the Service's selector matches no Deployment's pods")
        if not (doc.get("spec") or {}).get("ports"):
            problem(where, "the Service has no ports")
    if not any(d.get("kind") == "Job" and (d.get("spec") or {}).get("completionMode") == "Indexed"
               for _, d in docs):
        problem(manifest_dir, "no Indexed Job for the shards")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"k8s: {len(docs)} documents ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
