/*
 * lci_tree.h - binary spanning trees for multicast.
 *
 * The members of a group are numbered 0..n-1 (their index in the group's
 * member list).  The tree is rooted at the sender: member i has relative
 * position r = (i - root + n) % n, and the children of position r are
 * positions 2r+1 and 2r+2.  Pure functions: used by host and NI alike.
 */
#ifndef LCI_TREE_H
#define LCI_TREE_H

/* Writes the member indices of my_index's children into children[0..1] and
 * returns how many there are (0, 1 or 2).  -1 if an argument is out of
 * range. */
int lci_tree_children(int nmembers, int root, int my_index, int children[2]);

/* Member index of my_index's parent, or -1 for the root (or bad input). */
int lci_tree_parent(int nmembers, int root, int my_index);

/* Depth of my_index below the root (root = 0), or -1 on bad input. */
int lci_tree_depth(int nmembers, int root, int my_index);

#endif
