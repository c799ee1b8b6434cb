# Used by test-cli-run: prints its arguments and exits with the first one.
import sys
print("args:", " ".join(sys.argv[1:]))
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
