/*
 * orca_errors.c - node program: every misuse of the Orca layer returns its
 * status with a message that says what was expected.
 *
 * Usage: lci-run -n 2 ./orca_errors
 *
 * Node 1 owns a single-copy object whose type it registered differently
 * from node 0 (one operation takes an int64 there, a double on node 0, and
 * node 0 has an operation node 1 lacks): node 0's calls pass its own
 * checks and come back from the owner as ORCA_ERR_SIGNATURE and
 * ORCA_ERR_UNKNOWN_OP.
 */
#include "orca_types.h"

/* Fails unless r is want and the last error mentions needle. */
static void expect(int r, int want, const char *needle, const char *what)
{
    if (r != want) {
        e2e_fail("%s returned %d (%s), expected %d (%s): %s", what, r,
                 orca_strerror(r), want, orca_strerror(want),
                 orca_last_error());
    }
    if (needle != NULL && strstr(orca_last_error(), needle) == NULL) {
        e2e_fail("%s: the message \"%s\" does not mention \"%s\"", what,
                 orca_last_error(), needle);
    }
}

static int64_t skew_int(counter_t *self, int64_t x)
{
    return self->value += x;
}

static int64_t skew_double(counter_t *self, double x)
{
    return self->value += (int64_t)x;
}

/* An operation that invokes an operation: answers the status it got. */
static orca_object_t *reentered;

static int32_t reenter(counter_t *self)
{
    (void)self;
    orca_value_t one = orca_int64(1);
    return orca_invoke(reentered, COUNTER_ADD, &one, 1, NULL);
}

/* The same type, registered as node 1 and node 0 each see it. */
static orca_type_t *skewed_type(void)
{
    orca_type_t *t;
    static const orca_vtype_t as_int[] = {ORCA_INT64};
    static const orca_vtype_t as_double[] = {ORCA_DOUBLE};
    orca_test_check(orca_type_create("skewed", sizeof(counter_t), NULL, &t),
                    "orca_type_create");
    if (pan_rank() == 1) {
        orca_test_check(orca_op_define(t, "add", ORCA_WRITE,
                                       ORCA_FUNC(skew_int), ORCA_INT64, 1,
                                       as_int),
                        "orca_op_define");
    } else {
        orca_test_check(orca_op_define(t, "add", ORCA_WRITE,
                                       ORCA_FUNC(skew_double), ORCA_INT64, 1,
                                       as_double),
                        "orca_op_define");
        orca_test_check(orca_op_define(t, "extra", ORCA_READ,
                                       ORCA_FUNC(counter_value), ORCA_INT64, 0,
                                       NULL),
                        "orca_op_define");
    }
    return t;
}

static void definition_errors(orca_type_t *ct)
{
    orca_type_t *t;
    static const orca_vtype_t void_arg[] = {ORCA_VOID};
    static const orca_vtype_t nine[9] = {ORCA_INT32};
    static const orca_vtype_t one_int[] = {ORCA_INT64};
    expect(orca_type_create("empty", 0, NULL, &t), ORCA_ERR_INVAL, "0 bytes",
           "a type without state");
    expect(orca_type_create(NULL, 8, NULL, &t), ORCA_ERR_INVAL, "NULL",
           "a type without name");
    expect(orca_op_define(ct, "add", ORCA_WRITE, ORCA_FUNC(counter_add),
                          ORCA_INT64, 1, one_int),
           ORCA_ERR_INVAL, "already has an operation add",
           "a second operation add");
    expect(orca_op_define(ct, "v", ORCA_WRITE, ORCA_FUNC(counter_add),
                          ORCA_INT64, 1, void_arg),
           ORCA_ERR_INVAL, "expected int32, int64, double or bytes",
           "a void argument");
    expect(orca_op_define(ct, "b", ORCA_READ, ORCA_FUNC(counter_value),
                          ORCA_BYTES, 0, NULL),
           ORCA_ERR_INVAL, "expected void, int32, int64 or double",
           "a bytes result");
    expect(orca_op_define(ct, "nine", ORCA_READ, ORCA_FUNC(counter_value),
                          ORCA_INT64, 9, nine),
           ORCA_ERR_SIZE, "9 arguments", "nine arguments");
    expect(orca_op_define(ct, "rw", (orca_access_t)7, ORCA_FUNC(counter_value),
                          ORCA_INT64, 0, NULL),
           ORCA_ERR_INVAL, "ORCA_READ or ORCA_WRITE", "a bad access flag");
    expect(orca_op_guard(ct, COUNTER_ADD, NULL), ORCA_ERR_INVAL, "NULL",
           "a NULL guard");
    expect(orca_op_guard(ct, 7, ORCA_FUNC(counter_value)), ORCA_ERR_UNKNOWN_OP,
           "no operation number 7", "a guard for operation 7");
    expect(orca_op_find(ct, "nope"), ORCA_ERR_UNKNOWN_OP, "no operation nope",
           "finding an unknown operation");
    if (orca_op_find(ct, "value") != COUNTER_VALUE) {
        e2e_fail("orca_op_find(value) is not operation %d", COUNTER_VALUE);
    }
}

static void invocation_errors(orca_object_t *counter)
{
    orca_value_t one = orca_int64(1), two[2] = {orca_int64(1), orca_int64(2)};
    orca_value_t wrong = orca_double(1.0), res;
    expect(orca_invoke(counter, COUNTER_ADD, two, 2, &res), ORCA_ERR_SIGNATURE,
           "counter.add takes 1 argument(s), got 2", "two arguments to add");
    expect(orca_invoke(counter, COUNTER_ADD, &wrong, 1, &res),
           ORCA_ERR_SIGNATURE,
           "argument 1 of counter.add is int64, got "
           "double",
           "a double to add");
    expect(orca_invoke(counter, 99, &one, 1, &res), ORCA_ERR_UNKNOWN_OP,
           "no operation number 99", "operation 99");
    expect(orca_invoke(counter, -1, NULL, 0, &res), ORCA_ERR_UNKNOWN_OP,
           "no operation number -1", "operation -1");
    expect(orca_invoke(NULL, COUNTER_ADD, &one, 1, &res), ORCA_ERR_INVAL,
           "not an object", "a NULL object");
    expect(orca_sync(NULL), ORCA_ERR_INVAL, "not an object",
           "syncing a NULL object");
}

int main(int argc, char **argv)
{
    pps_init(&argc, &argv, "orca_errors");
    if (pan_size() != 2) {
        e2e_fail("run on 2 nodes");
    }
    orca_type_t *t;
    orca_object_t *obj;
    expect(orca_type_create("early", 8, NULL, &t), ORCA_ERR_STATE,
           "orca_init first", "a type before orca_init");
    orca_test_check(orca_init(), "orca_init");
    expect(orca_init(), ORCA_ERR_STATE, "already", "a second orca_init");

    orca_type_t *ct = counter_type();
    definition_errors(ct);
    expect(orca_object_create(ct, 2, &obj), ORCA_ERR_INVAL,
           "expected ORCA_REPLICATED (-1) or a node 0..1",
           "an owner out of range");
    orca_object_t *counter;
    orca_test_check(orca_object_create(ct, ORCA_REPLICATED, &counter),
                    "orca_object_create");
    invocation_errors(counter);

    orca_value_t got;
    int op = orca_op_define(ct, "reenter", ORCA_READ, ORCA_FUNC(reenter),
                            ORCA_INT32, 0, NULL);
    orca_test_check(op, "orca_op_define");
    reentered = counter;
    orca_test_check(orca_invoke(counter, op, NULL, 0, &got), "reenter");
    if (got.u.i32 != ORCA_ERR_STATE ||
        strstr(orca_last_error(), "from inside an operation") == NULL) {
        e2e_fail("an invocation from an operation returned %d: %s",
                 (int)got.u.i32, orca_last_error());
    }

    orca_object_t *skewed;
    orca_test_check(orca_object_create(skewed_type(), 1, &skewed),
                    "orca_object_create");
    if (pan_rank() == 0) {
        orca_value_t d = orca_double(3.0), res;
        expect(orca_invoke(skewed, 0, &d, 1, &res), ORCA_ERR_SIGNATURE,
               "node 1 answered", "a signature the owner does not share");
        if (strstr(orca_last_error(), "is int64, got double") == NULL) {
            e2e_fail("the owner's reason is missing: %s", orca_last_error());
        }
        expect(orca_invoke(skewed, 1, NULL, 0, &res), ORCA_ERR_UNKNOWN_OP,
               "no operation number 1", "an operation the owner lacks");
    }
    orca_test_check(orca_end(), "orca_end");
    expect(orca_end(), ORCA_ERR_STATE, "orca_init first", "a second orca_end");
    pps_check(pan_end(), "pan_end");
    return 0;
}
