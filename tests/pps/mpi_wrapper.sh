#!/bin/sh
# mpi_wrapper.sh - an MPI program written only against mpi.h builds with
# lci-mpicc, both in one step and through a configure-style compile and
# link, and runs correctly under lci-run.  Also checks that a call outside
# the subset fails to build instead of misbehaving.
set -u
b=${top_builddir:-.}
s=${top_srcdir:-.}
mpicc=$b/ppsbindings/mpi/lci-mpicc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; echo "0 passed, 1 failed"; exit 1; }

# One step, as "lci-mpicc -o prog prog.c".
"$mpicc" -o "$tmp/mpi_coll" "$s/tests/pps/mpi_coll.c" -I"$s/tests/pps" ||
    fail "lci-mpicc could not build mpi_coll.c"
"$b/lci/lci-run" -n 4 "$tmp/mpi_coll" || fail "mpi_coll built by lci-mpicc failed"

# Compile and link separately, as make does after CC=lci-mpicc ./configure.
"$mpicc" -c -o "$tmp/mpi_p2p.o" "$s/tests/pps/mpi_p2p.c" -I"$s/tests/pps" ||
    fail "lci-mpicc -c failed"
"$mpicc" -o "$tmp/mpi_p2p" "$tmp/mpi_p2p.o" || fail "lci-mpicc link failed"
"$b/lci/lci-run" -n 3 "$tmp/mpi_p2p" 4 || fail "mpi_p2p built by lci-mpicc failed"

# A call the subset does not offer does not build.
cat > "$tmp/comm_split.c" <<'PROG'
#include <mpi.h>
int main(int argc, char **argv)
{
    MPI_Comm c;
    MPI_Init(&argc, &argv);
    MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &c);
    return MPI_Finalize();
}
PROG
if "$mpicc" -Werror=implicit-function-declaration -o "$tmp/comm_split" \
    "$tmp/comm_split.c" 2>"$tmp/err"; then
    fail "a program calling MPI_Comm_split was built"
fi
grep -q MPI_Comm_split "$tmp/err" || fail "the build error does not name MPI_Comm_split"

"$mpicc" --showme | grep -q -- -lmpi_lci || fail "--showme does not name libmpi_lci"
echo "4 passed, 0 failed"
