# Thin wrappers over cargo: every recipe is the same command the README gives.

bench *ARGS:
    cargo lab bench {{ARGS}}

test:
    cargo test --workspace

verify *ARGS:
    cargo lab verify {{ARGS}}

check *ARGS:
    cargo lab check {{ARGS}}

profile +SELECTION:
    cargo lab profile {{SELECTION}}

list *ARGS:
    cargo lab list {{ARGS}}

report:
    cargo lab report

fuzz TARGET SECONDS="600":
    cargo lab fuzz {{TARGET}} {{SECONDS}}

fuzz-smoke:
    cargo lab fuzz-smoke
