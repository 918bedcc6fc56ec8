/* test_tree.c - binary spanning trees for multicast: for every group size
 * up to 300 and every root, the tree is a proper spanning tree of the
 * expected shape. */
#include "config.h"

#include <string.h>

#include "lci_tree.h"
#include "unit_run.h"

#define MAX_MEMBERS 300

/* floor(log2(n)) for n >= 1: the height of a complete binary tree. */
static int floor_log2(int n)
{
    int h = 0;

    while (n > 1) {
        n >>= 1;
        h++;
    }
    return h;
}

static void tree_rejects_bad_arguments(void)
{
    int ch[2];

    CU_ASSERT_EQUAL(lci_tree_children(0, 0, 0, ch), -1);
    CU_ASSERT_EQUAL(lci_tree_children(-1, 0, 0, ch), -1);
    CU_ASSERT_EQUAL(lci_tree_children(4, 4, 0, ch), -1);
    CU_ASSERT_EQUAL(lci_tree_children(4, -1, 0, ch), -1);
    CU_ASSERT_EQUAL(lci_tree_children(4, 0, 4, ch), -1);
    CU_ASSERT_EQUAL(lci_tree_children(4, 0, -1, ch), -1);
    CU_ASSERT_EQUAL(lci_tree_children(4, 0, 0, NULL), -1);
    CU_ASSERT_EQUAL(lci_tree_parent(0, 0, 0), -1);
    CU_ASSERT_EQUAL(lci_tree_parent(4, 5, 1), -1);
    CU_ASSERT_EQUAL(lci_tree_parent(4, 0, 9), -1);
    CU_ASSERT_EQUAL(lci_tree_depth(0, 0, 0), -1);
    CU_ASSERT_EQUAL(lci_tree_depth(4, -2, 1), -1);
    CU_ASSERT_EQUAL(lci_tree_depth(4, 1, 4), -1);
}

static void tree_single_member_is_a_lone_root(void)
{
    int ch[2] = {-7, -7};

    CU_ASSERT_EQUAL(lci_tree_children(1, 0, 0, ch), 0);
    CU_ASSERT_EQUAL(lci_tree_parent(1, 0, 0), -1);
    CU_ASSERT_EQUAL(lci_tree_depth(1, 0, 0), 0);
}

static void tree_children_follow_heap_order_relative_to_root(void)
{
    int ch[2];

    /* n = 5, root 3: positions 0..4 are members 3, 4, 0, 1, 2. */
    CU_ASSERT_EQUAL_FATAL(lci_tree_children(5, 3, 3, ch), 2);
    CU_ASSERT_EQUAL(ch[0], 4);
    CU_ASSERT_EQUAL(ch[1], 0);
    CU_ASSERT_EQUAL_FATAL(lci_tree_children(5, 3, 4, ch), 2);
    CU_ASSERT_EQUAL(ch[0], 1);
    CU_ASSERT_EQUAL(ch[1], 2);
    CU_ASSERT_EQUAL(lci_tree_children(5, 3, 0, ch), 0);
    CU_ASSERT_EQUAL(lci_tree_parent(5, 3, 2), 4);
    CU_ASSERT_EQUAL(lci_tree_parent(5, 3, 0), 3);
    CU_ASSERT_EQUAL(lci_tree_depth(5, 3, 2), 2);
}

static void tree_every_non_root_member_has_exactly_one_parent(void)
{
    for (int n = 1; n <= MAX_MEMBERS; n++) {
        for (int root = 0; root < n; root++) {
            /* Count how often each member is named as somebody's child. */
            int named[MAX_MEMBERS];

            memset(named, 0, sizeof(named));
            for (int i = 0; i < n; i++) {
                int ch[2];
                int k = lci_tree_children(n, root, i, ch);

                CU_ASSERT_TRUE_FATAL(k >= 0 && k <= 2);
                for (int j = 0; j < k; j++) {
                    CU_ASSERT_TRUE_FATAL(ch[j] >= 0 && ch[j] < n);
                    named[ch[j]]++;
                }
            }
            for (int i = 0; i < n; i++) {
                int parent = lci_tree_parent(n, root, i);

                if (i == root) {
                    CU_ASSERT_EQUAL_FATAL(parent, -1);
                    CU_ASSERT_EQUAL_FATAL(named[i], 0);
                } else {
                    CU_ASSERT_TRUE_FATAL(parent >= 0 && parent < n);
                    CU_ASSERT_NOT_EQUAL_FATAL(parent, i);
                    CU_ASSERT_EQUAL_FATAL(named[i], 1);
                }
            }
        }
    }
}

static void tree_children_and_parent_agree(void)
{
    for (int n = 1; n <= MAX_MEMBERS; n++) {
        for (int root = 0; root < n; root++) {
            int nchildren[MAX_MEMBERS];

            memset(nchildren, 0, sizeof(nchildren));
            for (int i = 0; i < n; i++) {
                int ch[2];
                int k = lci_tree_children(n, root, i, ch);

                CU_ASSERT_TRUE_FATAL(k >= 0);
                for (int j = 0; j < k; j++) {
                    CU_ASSERT_EQUAL_FATAL(lci_tree_parent(n, root, ch[j]), i);
                }
                if (k == 2) {
                    CU_ASSERT_NOT_EQUAL_FATAL(ch[0], ch[1]);
                }
                nchildren[i] = k;
            }
            /* Conversely, each member's parent lists it as a child. */
            int counted[MAX_MEMBERS];

            memset(counted, 0, sizeof(counted));
            for (int i = 0; i < n; i++) {
                int parent = lci_tree_parent(n, root, i);

                if (parent >= 0) {
                    counted[parent]++;
                }
            }
            for (int i = 0; i < n; i++) {
                CU_ASSERT_EQUAL_FATAL(counted[i], nchildren[i]);
            }
        }
    }
}

static void tree_covers_every_member_exactly_once(void)
{
    for (int n = 1; n <= MAX_MEMBERS; n++) {
        for (int root = 0; root < n; root++) {
            /* Breadth-first walk from the root along children. */
            int queue[MAX_MEMBERS];
            int visits[MAX_MEMBERS];
            int head = 0;
            int tail = 0;

            memset(visits, 0, sizeof(visits));
            queue[tail++] = root;
            visits[root] = 1;
            while (head < tail) {
                int ch[2];
                int k = lci_tree_children(n, root, queue[head++], ch);

                CU_ASSERT_TRUE_FATAL(k >= 0);
                for (int j = 0; j < k; j++) {
                    CU_ASSERT_EQUAL_FATAL(visits[ch[j]], 0);
                    CU_ASSERT_TRUE_FATAL(tail < n);
                    visits[ch[j]]++;
                    queue[tail++] = ch[j];
                }
            }
            CU_ASSERT_EQUAL_FATAL(tail, n);
            for (int i = 0; i < n; i++) {
                CU_ASSERT_EQUAL_FATAL(visits[i], 1);
            }
        }
    }
}

static void tree_depth_grows_by_one_per_level_up_to_floor_log2(void)
{
    for (int n = 1; n <= MAX_MEMBERS; n++) {
        for (int root = 0; root < n; root++) {
            int max_depth = 0;

            for (int i = 0; i < n; i++) {
                int d = lci_tree_depth(n, root, i);
                int parent = lci_tree_parent(n, root, i);

                if (i == root) {
                    CU_ASSERT_EQUAL_FATAL(d, 0);
                } else {
                    CU_ASSERT_EQUAL_FATAL(d,
                                          lci_tree_depth(n, root, parent) + 1);
                }
                if (d > max_depth) {
                    max_depth = d;
                }
            }
            /* A complete binary tree: height floor(log2 n), which is what
             * makes a 64-node broadcast take 6 forwarding steps. */
            CU_ASSERT_EQUAL_FATAL(max_depth, floor_log2(n));
        }
    }
}

static void tree_is_the_same_shape_for_every_root(void)
{
    /* Rotating the root rotates the tree: member i under root r has the
     * relative position of member (i - r) under root 0. */
    for (int n = 1; n <= MAX_MEMBERS; n += 13) {
        for (int root = 0; root < n; root++) {
            for (int i = 0; i < n; i++) {
                int rel = (i - root + n) % n;

                CU_ASSERT_EQUAL_FATAL(lci_tree_depth(n, root, i),
                                      lci_tree_depth(n, 0, rel));
                int c0[2];
                int c1[2];
                int k0 = lci_tree_children(n, 0, rel, c0);
                int k1 = lci_tree_children(n, root, i, c1);

                CU_ASSERT_EQUAL_FATAL(k0, k1);
                for (int j = 0; j < k0 && j < 2; j++) {
                    CU_ASSERT_EQUAL_FATAL(c1[j], (c0[j] + root) % n);
                }
            }
        }
    }
}

int main(void)
{
    static const lci_unit_test_t tests[] = {
        {"tree_rejects_bad_arguments", tree_rejects_bad_arguments},
        {"tree_single_member_is_a_lone_root",
         tree_single_member_is_a_lone_root},
        {"tree_children_follow_heap_order_relative_to_root",
         tree_children_follow_heap_order_relative_to_root},
        {"tree_every_non_root_member_has_exactly_one_parent",
         tree_every_non_root_member_has_exactly_one_parent},
        {"tree_children_and_parent_agree", tree_children_and_parent_agree},
        {"tree_covers_every_member_exactly_once",
         tree_covers_every_member_exactly_once},
        {"tree_depth_grows_by_one_per_level_up_to_floor_log2",
         tree_depth_grows_by_one_per_level_up_to_floor_log2},
        {"tree_is_the_same_shape_for_every_root",
         tree_is_the_same_shape_for_every_root},
    };

    return lci_unit_run("tree", tests, LCI_UNIT_COUNT(tests));
}
