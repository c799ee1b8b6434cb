# Used by test-cli-run: a syntax error on line 3.
x = 1
y = (x +
