# sanitizers.sh: sourced by the test scripts, after they have set BUILD (a
# build tree) and SRC_TESTS (the tests/ directory of the sources).  Says
# what sanitizers the tree was configured with (configure
# --enable-sanitizers) and sets the environment the tests run in:
#   SANITIZE          "", address, undefined or address,undefined
#   SANITIZE_CFLAGS   what a test program built outside make needs to link
#   SANITIZE_LDFLAGS  against libompdsm (empty without sanitizers)
#   ASAN              1 with AddressSanitizer, 0 without
#   SEGV_REPORT       with ASan, the line its report of a segmentation fault
#                     starts with (ASan reports a fault outside the shared
#                     memory, which the DSM passes on to it), else empty
# With ASan, LeakSanitizer checks every process at exit; the leaks of other
# libraries (tests/lsan.supp) are suppressed, whatever LSAN_OPTIONS says,
# and silently: no "Suppressions used" table on the stderr a test compares.

make_var() {    # make_var NAME: the value configure gave NAME in BUILD's Makefile
    sed -n "s/^$1 = //p" "$BUILD/Makefile" 2>/dev/null
}

SANITIZE=$(make_var SANITIZE)
SANITIZE_CFLAGS=$(make_var SANITIZE_CFLAGS)
SANITIZE_LDFLAGS=$(make_var SANITIZE_LDFLAGS)
ASAN=0
SEGV_REPORT=
case ,$SANITIZE, in
*,address,*)
    ASAN=1
    SEGV_REPORT="ERROR: AddressSanitizer: SEGV on unknown address"
    LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$SRC_TESTS/lsan.supp:print_suppressions=0"
    export LSAN_OPTIONS ;;
esac
