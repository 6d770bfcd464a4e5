/* A flush with a memory-order clause: GCC emits no instruction for it on
 * x86-64, so ompdsm-cc must refuse it rather than build a program whose
 * flush silently does nothing across nodes. */
int flag;

int main(void)
{
#pragma omp parallel
    {
        flag = 1;
#pragma omp flush acq_rel
    }
    return flag - 1;
}
