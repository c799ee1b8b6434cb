# Used by test-cli-run: an uncaught exception two frames deep.
def inner():
    raise ValueError("boom")


inner()
