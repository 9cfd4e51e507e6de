# syntax=docker/dockerfile:1
# tabnorm: one static binary (pure Go, SQLite included) on a distroless base
# with no shell, running as an unprivileged user.

# Base images by tag, not yet by digest: no container registry could be
# reached where this file was last changed, so no digest could be read, and
# none is written from memory. Pin both where one answers, with
# .ci/docker/pin (it resolves each tag's digest and rewrites the FROM
# lines here and the images of compose.yaml to tag@sha256:…), and commit.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# CGO off: a static binary that needs no libc. VCS stamping is on when
# the build context has .git (tabnorm version prints the commit), off
# otherwise rather than failing the build.
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -buildvcs=auto -ldflags='-s -w' -o /out/tabnorm ./cmd/tabnorm \
 && mkdir -p /out/data

# distroless/static: CA certificates (for S3 over https), tzdata, /tmp, and
# the nonroot user (65532), nothing else.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/tabnorm /usr/local/bin/tabnorm
# The default SQLite database and blob folder live under /data (a volume).
COPY --from=build --chown=65532:65532 /out/data /data
WORKDIR /data
USER 65532:65532
ENV TABNORM_HTTP_ADDR=:8080 \
    TABNORM_DATABASE_URL=sqlite:///data/tabnorm.db \
    TABNORM_BLOB_URL=file:///data/blobs \
    TABNORM_LOG_FORMAT=json
EXPOSE 8080
VOLUME ["/data"]
# No curl or wget in the image: the binary probes its own /readyz.
HEALTHCHECK --interval=10s --timeout=6s --start-period=30s --retries=3 CMD ["/usr/local/bin/tabnorm", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/tabnorm"]
CMD ["serve"]
