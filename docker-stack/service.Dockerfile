# The judge service (API and Celery worker share this image), built from the project itself.
#
# Built FROM the local debian:trixie-slim (pulled, or made by `judge images build` with
# debootstrap when no registry is reachable: the base every sandbox image is built on too), with
# `--network host` (dockerd runs without a bridge here). Python comes from Debian (trixie's 3.13
# meets requires-python); the project's
# dependencies come from PyPI as pyproject.toml declares them.
FROM debian:trixie-slim

ENV DEBIAN_FRONTEND=noninteractive \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    PATH=/opt/judge/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
    && rm -rf /var/lib/apt/lists/*

# Extra CA certificates (*.crt) for a TLS-intercepting proxy between the build and PyPI;
# scripts/compose-smoke copies the host's /usr/local/share/ca-certificates here. Empty is fine.
COPY docker-stack/certs/ /usr/local/share/ca-certificates/
RUN update-ca-certificates

RUN python3 -m venv /opt/judge && pip install --quiet --upgrade pip

# Dependencies first, from pyproject.toml alone, so that editing the code reuses this layer.
COPY pyproject.toml /src/pyproject.toml
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('/src/pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
    && pip install --quiet -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

COPY . /src
RUN pip install --quiet --no-deps /src && rm -rf /src /root/.cache \
    && useradd --system --uid 10001 --home-dir /var/lib/judge --create-home judge

# The API runs as this user; the worker runs as root for the Docker socket (see compose file).
USER judge
WORKDIR /var/lib/judge
ENTRYPOINT ["judge"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8090"]
