// Prints every stage name of the stage table, one a line, for
// test_no_stage_literals.py: the names come from the table itself.
#include <stdio.h>

#include "stage.h"

int main(void) {
    for (int i = 0; i < stage_count(); i++) printf("%s\n", stage_at(i)->name);
    return 0;
}
