"""What the error-case workloads share: check(fn) prints the error fn raises
as "Type: message", or "no error". Not a workload itself (no .expected)."""


def check(fn):
    try:
        fn()
    except Exception as err:
        print(type(err).__name__ + ":", err)
    else:
        print("no error")
