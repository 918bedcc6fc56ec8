/*
 * lci_tree.c - binary spanning trees for multicast (see lci_tree.h).
 *
 * Work in relative positions r = (i - root) mod n, where the tree is the
 * implicit binary heap: children 2r+1, 2r+2, parent (r-1)/2.  Arithmetic is
 * done in long long so that 2r+2 cannot overflow for any int n.
 */
#include "config.h"

#include "lci_tree.h"

#include <stddef.h>

static int lci_tree_args_ok(int nmembers, int root, int my_index)
{
    return nmembers > 0 && root >= 0 && root < nmembers && my_index >= 0 &&
           my_index < nmembers;
}

static long long lci_tree_rel(int nmembers, int root, int index)
{
    return ((long long)index - root + nmembers) % nmembers;
}

static int lci_tree_abs(int nmembers, int root, long long rel)
{
    return (int)((rel + root) % nmembers);
}

int lci_tree_children(int nmembers, int root, int my_index, int children[2])
{
    if (children == NULL || !lci_tree_args_ok(nmembers, root, my_index)) {
        return -1;
    }
    long long r = lci_tree_rel(nmembers, root, my_index);
    int count = 0;

    for (long long c = 2 * r + 1; c <= 2 * r + 2 && c < nmembers; c++) {
        children[count++] = lci_tree_abs(nmembers, root, c);
    }
    return count;
}

int lci_tree_parent(int nmembers, int root, int my_index)
{
    if (!lci_tree_args_ok(nmembers, root, my_index) || my_index == root) {
        return -1;
    }
    long long r = lci_tree_rel(nmembers, root, my_index);

    return lci_tree_abs(nmembers, root, (r - 1) / 2);
}

int lci_tree_depth(int nmembers, int root, int my_index)
{
    if (!lci_tree_args_ok(nmembers, root, my_index)) {
        return -1;
    }
    /* Position r sits on level floor(log2(r + 1)). */
    unsigned long long v =
        (unsigned long long)lci_tree_rel(nmembers, root, my_index) + 1;
    int depth = 0;

    while (v > 1) {
        v >>= 1;
        depth++;
    }
    return depth;
}
