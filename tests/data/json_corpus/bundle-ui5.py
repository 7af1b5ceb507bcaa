# Bundles UI5 CLI's ui5.yaml schema (packages/project/lib/validation/schema/,
# one file per specVersion kind, joined by relative $refs) into one document:
# each other file goes under the root's "definitions" by its path, without
# its "$id"/"$schema", and every "$ref" becomes a pointer into the bundle.
import json, posixpath, subprocess, sys
repo, commit = sys.argv[1], sys.argv[2]
base = "packages/project/lib/validation/schema/"
files = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", commit, base],
                       capture_output=True, text=True, check=True).stdout.split()
files = [f[len(base):] for f in files if f.endswith(".json") and not f.endswith("ui5-workspace.json")]
docs = {f: json.loads(subprocess.run(["git", "-C", repo, "show", f"{commit}:{base}{f}"],
                                     capture_output=True, text=True, check=True).stdout) for f in files}
def key(f):
    return f[:-len(".json")].replace("/", ".")
def prefix(f):
    return "" if f == "ui5.json" else "/definitions/" + key(f)
def rewrite(v, f):
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if k == "$ref" and isinstance(x, str):
                path, _, frag = x.partition("#")
                target = posixpath.normpath(posixpath.join(posixpath.dirname(f), path)) if path else f
                assert target in docs, (f, x)
                out[k] = "#" + prefix(target) + frag
            else:
                out[k] = rewrite(x, f)
        return out
    if isinstance(v, list):
        return [rewrite(x, f) for x in v]
    return v
root = rewrite(docs["ui5.json"], "ui5.json")
root.pop("$id", None)
defs = root.setdefault("definitions", {})
for f in sorted(docs):
    if f == "ui5.json":
        continue
    d = rewrite(docs[f], f)
    d.pop("$id", None); d.pop("$schema", None)
    assert key(f) not in defs
    defs[key(f)] = d
json.dump(root, sys.stdout, indent="\t", ensure_ascii=False)
print()
