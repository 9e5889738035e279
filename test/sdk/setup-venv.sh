#!/usr/bin/env bash
# Makes the throwaway venv the SDK compatibility test uses: .cache/sdk-venv (git-ignored).
#   bash test/sdk/setup-venv.sh                  pip install tinker from the configured package index
#   TINKER_SDK_SRC=<checkout> bash test/sdk/setup-venv.sh
#                                                use an SDK source checkout instead (its src/ goes on
#                                                the venv's path; its dependencies come from the index)
# pyqwest is never needed: the local backend's client config turns the pyqwest transport off.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.cache/sdk-venv
python3 -m venv --system-site-packages "$venv"
pip=("$venv/bin/pip" install --quiet)
if [ -n "${PIP_SDK_INDEX:-}" ]; then pip+=(--index-url "$PIP_SDK_INDEX"); fi
if [ -z "${TINKER_SDK_SRC:-}" ]; then
  "${pip[@]}" tinker
else
  "${pip[@]}" "httpx[http2]" anyio distro protobuf zstandard rich pydantic numpy sniffio orjson click
  site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  src=$(cd "$TINKER_SDK_SRC" && pwd)/src
  echo "$src" > "$site/tinker-sdk-src.pth"
  version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$TINKER_SDK_SRC/pyproject.toml" | head -1)
  # tinker/_version.py reads its version from installed package metadata.
  mkdir -p "$site/tinker-$version.dist-info"
  printf 'Metadata-Version: 2.1\nName: tinker\nVersion: %s\n' "$version" > "$site/tinker-$version.dist-info/METADATA"
fi
"$venv/bin/python" -c 'import tinker; print("tinker", tinker.__version__)'
