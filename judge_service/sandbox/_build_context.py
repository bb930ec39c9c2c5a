"""The directory ``docker build`` reads for an image: its context under ``sandbox_images/``,
with the host's CA bundle added where the Dockerfile asks for it."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HOST_CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
# The file a Dockerfile COPYs to trust what the host trusts (an empty file where it has none).
HOST_CA_NAME = "host-ca.crt"


@contextmanager
def staged_context(context: Path, ca_bundle: Path = HOST_CA_BUNDLE) -> Iterator[Path]:
    """``context`` itself, or a temporary copy of it holding the host's CA bundle as
    ``host-ca.crt`` when its Dockerfile names that file. A registry reached through a
    TLS-intercepting proxy (npm's, here) is then trusted in the build stage that downloads, as
    on the host; Debian's own bundle knows no such proxy's CA. The file is not part of the
    image's build hash: it says where the image was built, not what it holds."""
    dockerfile = context / "Dockerfile"
    if not dockerfile.is_file() or HOST_CA_NAME not in dockerfile.read_text():
        yield context
        return
    workdir = Path(tempfile.mkdtemp(prefix="judge-context-"))
    try:
        staged = workdir / context.name
        shutil.copytree(context, staged)
        try:
            bundle = ca_bundle.read_bytes()
        except OSError:
            bundle = b""
        (staged / HOST_CA_NAME).write_bytes(bundle)
        yield staged
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
