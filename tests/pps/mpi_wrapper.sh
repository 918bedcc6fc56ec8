#!/bin/sh
# mpi_wrapper.sh - an MPI program written only against mpi.h builds with
# lci-mpicc, both in one step and through a configure-style compile and
# link, and runs correctly under lci-run.  Also checks that a call the
# layer does not offer fails to build with a message instead of
# misbehaving, that a tool can wrap MPI_* around PMPI_*, that a C++
# program builds with lci-mpicxx, and that an autotools package builds
# with CC=lci-mpicc ./configure && make.
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

# A call the layer does not offer does not build, and says why.
cat > "$tmp/win.c" <<'PROG'
#include <mpi.h>
int main(int argc, char **argv)
{
    MPI_Win w;
    MPI_Init(&argc, &argv);
    MPI_Win_create(0, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    return MPI_Finalize();
}
PROG
if "$mpicc" -o "$tmp/win" "$tmp/win.c" 2>"$tmp/err"; then
    fail "a program calling MPI_Win_create was built"
fi
grep -q MPI_Win_create "$tmp/err" || fail "the build error does not name MPI_Win_create"
grep -q "not offered" "$tmp/err" || fail "the build error does not say it is not offered"

# The profiling interface: a tool's MPI_Send wraps PMPI_Send.
cat > "$tmp/pmpi.c" <<'PROG'
#include <mpi.h>
#include <stdio.h>
static int sends;
int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest,
             int tag, MPI_Comm comm)
{
    sends++;
    return PMPI_Send(buf, count, type, dest, tag, comm);
}
int main(int argc, char **argv)
{
    int rank, size, v = 5, got = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int i = 1; i < size; i++) {
            MPI_Send(&v, 1, MPI_INT, i, 0, MPI_COMM_WORLD);
        }
    } else {
        MPI_Recv(&got, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    if ((rank == 0 && sends != size - 1) || (rank > 0 && got != 5)) {
        printf("rank %d: %d sends counted, got %d\n", rank, sends, got);
        return 1;
    }
    return 0;
}
PROG
"$mpicc" -o "$tmp/pmpi" "$tmp/pmpi.c" || fail "the PMPI program did not build"
"$b/lci/lci-run" -n 3 "$tmp/pmpi" || fail "MPI_Send wrapping PMPI_Send was not called"

"$mpicc" --showme | grep -q -- -lmpi_lci || fail "--showme does not name libmpi_lci"
"$mpicc" -show -c x.c | grep -q -- "-c x.c" || fail "-show does not show the command"
"$mpicc" --showme:compile | grep -q -- -I || fail "--showme:compile gives no -I"
"$mpicc" --showme:link | grep -q -- -lmpi_lci || fail "--showme:link does not name libmpi_lci"
if "$mpicc" --showme:nonsense 2>"$tmp/err"; then
    fail "--showme:nonsense was accepted"
fi
grep -q "expected" "$tmp/err" || fail "--showme:nonsense does not say what was expected"

# C++: mpi.h inside a C++ program, through lci-mpicxx (with c++).
mpicxx=$b/ppsbindings/mpi/lci-mpicxx
"$mpicxx" --showme | grep -q -- "^c++ .*-lmpi_lci" ||
    fail "lci-mpicxx --showme does not compile with c++ against libmpi_lci"
if command -v c++ >/dev/null 2>&1; then
    cat > "$tmp/sum.cpp" <<'PROG'
#include <mpi.h>
#include <cstdio>
#include <vector>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<int> mine(2, rank), sum(2);
    MPI_Allreduce(mine.data(), sum.data(), 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        std::printf("c++: sum %d\n", sum[1]);
    }
    MPI_Finalize();
    return sum[0] == size * (size - 1) / 2 ? 0 : 1;
}
PROG
    "$mpicxx" -o "$tmp/sum" "$tmp/sum.cpp" || fail "lci-mpicxx could not build a C++ program"
    "$b/lci/lci-run" -n 4 "$tmp/sum" | grep -q "c++: sum 6" ||
        fail "the C++ program built by lci-mpicxx did not run"
else
    echo "no c++ compiler: the C++ build check is skipped"
fi
# An autotools MPI package configured with CC=lci-mpicc: configure's own
# checks find the MPI functions, make builds it, and it runs.
passed=7
if command -v autoreconf >/dev/null 2>&1; then
    pkg=$tmp/pkg
    mkdir -p "$pkg"
    cat > "$pkg/configure.ac" <<'AC'
AC_INIT([ring], [1.0])
AM_INIT_AUTOMAKE([foreign])
AC_PROG_CC
AC_CHECK_HEADERS([mpi.h], [], [AC_MSG_ERROR([no mpi.h])])
AC_CHECK_FUNCS([MPI_Init MPI_Allreduce], [], [AC_MSG_ERROR([no MPI])])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
AC
    printf 'bin_PROGRAMS = ring\nring_SOURCES = ring.c\n' > "$pkg/Makefile.am"
    cat > "$pkg/ring.c" <<'PROG'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, size, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("ring: sum %d\n", sum);
    }
    MPI_Finalize();
    return sum == size * (size - 1) / 2 ? 0 : 1;
}
PROG
    (cd "$pkg" && autoreconf -i >"$tmp/ac.log" 2>&1 &&
        ./configure CC="$mpicc" >>"$tmp/ac.log" 2>&1 &&
        make >>"$tmp/ac.log" 2>&1) || {
        tail -20 "$tmp/ac.log"
        fail "an autotools package did not configure and build with CC=lci-mpicc"
    }
    "$b/lci/lci-run" -n 8 "$pkg/ring" | grep -q "ring: sum 28" ||
        fail "the package built by CC=lci-mpicc ./configure && make did not run"
    passed=8
else
    echo "autoreconf not installed: the autotools package check is skipped"
fi
echo "$passed passed, 0 failed"
