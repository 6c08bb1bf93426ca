#!/bin/sh
# `npm start` and the Docker image's CMD: the server with the memory settings measured under the
# page-view load at 1M posts (each step's effect: bench/notes/image-search.md, "Server memory settings";
# docs/operations/runtime.md). Each setting can be overridden from the environment.
#  - MALLOC_ARENA_MAX=2: glibc gives every thread that allocates its own arena (up to 8 per core);
#    libvips' threads each kept one, fragmented by image buffers.
#  - MALLOC_MMAP_THRESHOLD_=131072: fixed, so buffers over 128 KiB (decoded images, file reads) are
#    mapped and returned to the system when freed; glibc's default threshold rises after the first
#    such free, and later ones stayed in the heap.
#  - --max-semi-space-size=8: Node 24's V8 sizes the young generation from the machine's memory
#    and touches it whole between scavenges; a request's garbage dies young.
#  - --heap-growing-percent=30: the old generation grows to 1.3 times what survived the last full
#    collection, not up to 4 times: the live heap is small next to the rest of the process.
# exec: node replaces the shell, so it gets SIGTERM itself (graceful shutdown) as PID 1 in Docker.
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-131072}"
exec node --max-semi-space-size=8 --heap-growing-percent=30 "$(dirname "$0")/build.mjs" server "$@"
