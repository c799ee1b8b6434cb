#include <glib.h>
int main (void) { return 0; }
