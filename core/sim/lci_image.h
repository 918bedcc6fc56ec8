/*
 * lci_image.h - private copies of a node program's image, so that many
 * nodes run one unmodified program in one process (the fiber engine), each
 * with its own globals.
 *
 * The program file is copied once per node, the copy's "position-
 * independent executable" flag is cleared (the dynamic loader refuses to
 * dlopen an executable that carries it), and the copy is loaded with
 * dlopen: its code, data and bss are its own; the libraries it needs
 * (libc, LCI, Panda, MPI) are loaded once and shared, and keep their
 * per-node state in node-local blocks (lci_node_local).  main is found in
 * the copy's symbol table, since an executable does not export it.
 */
#ifndef LCI_IMAGE_H
#define LCI_IMAGE_H

#include <stddef.h>

typedef int (*lci_image_main_func_t)(int argc, char **argv, char **envp);

/* The program file that PATH-searching execvp would run for name, into
 * path (capacity cap).  Returns 0, or -1 when there is none. */
int lci_image_find(const char *name, char *path, size_t cap);

/* Whether the program at path can run as fibers.  Returns 0 if so;
 * otherwise -1 with a one-line reason in why ("creates threads
 * (pthread_create)", "is not position-independent", ...). */
int lci_image_check(const char *path, char *why, size_t whylen);

/* Loads a private copy of the program at path, staging it in directory
 * dir, and returns its main.  Returns 0, or -1 with a message in err. */
int lci_image_load(const char *path, const char *dir,
                   lci_image_main_func_t *main_p, char *err, size_t errlen);

/* Whether addr lies in one of the private copies loaded so far. */
int lci_image_owns(const void *addr);

#endif
