"""A PEP 517 build backend for the mpdf package, standard library only.

The package is pure Python with no dependencies, so building its wheel is
zipping mpdf/*.py with the metadata: this backend does that, so that
`pip install ./python` needs nothing from an index (setuptools before 70.1
needs the separate `wheel` package to build one, which a machine without
PyPI may lack). Metadata are read from pyproject.toml's [project] table.
"""

import base64
import hashlib
import os
import zipfile

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11: the few keys read here, by hand
    tomllib = None

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_TAG = "py3-none-any"


def _project():
    path = os.path.join(_ROOT, "pyproject.toml")
    if tomllib is not None:
        with open(path, "rb") as f:
            return tomllib.load(f)["project"]
    project, section = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("["):
                section = line.strip("[]")
            elif section == "project" and "=" in line and not line.startswith("#"):
                key, value = (s.strip() for s in line.split("=", 1))
                if value.startswith('"'):
                    project[key] = value.strip('"')
    return project


def _metadata():
    p = _project()
    lines = [
        "Metadata-Version: 2.1",
        "Name: " + p["name"],
        "Version: " + p["version"],
        "Summary: " + p.get("description", ""),
        "Requires-Python: " + p.get("requires-python", ">=3.9"),
        "License: Apache-2.0",
        "Provides-Extra: torch",
        'Requires-Dist: torch; extra == "torch"',
    ]
    body = ""
    readme = os.path.join(_ROOT, "README.md")
    if os.path.exists(readme):
        lines.append("Description-Content-Type: text/markdown")
        with open(readme, encoding="utf-8") as f:
            body = "\n" + f.read()
    return p["name"], p["version"], "\n".join(lines) + "\n" + body


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name, version, metadata = _metadata()
    dist_info = "%s-%s.dist-info" % (name, version)
    files = []
    pkg = os.path.join(_ROOT, name)
    for fn in sorted(os.listdir(pkg)):
        if fn.endswith(".py"):
            with open(os.path.join(pkg, fn), "rb") as f:
                files.append(("%s/%s" % (name, fn), f.read()))
    wheel = "Wheel-Version: 1.0\nGenerator: mpdf_build\nRoot-Is-Purelib: true\nTag: %s\n" % _TAG
    files.append((dist_info + "/METADATA", metadata.encode("utf-8")))
    files.append((dist_info + "/WHEEL", wheel.encode("utf-8")))
    record = [_record_line(n, d) for n, d in files] + [dist_info + "/RECORD,,"]
    files.append((dist_info + "/RECORD", ("\n".join(record) + "\n").encode("utf-8")))
    out = "%s-%s-%s.whl" % (name, version, _TAG)
    with zipfile.ZipFile(os.path.join(wheel_directory, out), "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files:
            info = zipfile.ZipInfo(n, date_time=(1980, 1, 1, 0, 0, 0))  # the same bytes each build
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, d)
    return out
