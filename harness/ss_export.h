/* ss_export.h - pieces of the PyTorch reproducer script that `ssfuzz export --torch` prints. */
#ifndef SS_EXPORT_H
#define SS_EXPORT_H

/* Python source that follows the case's constants (DTYPE, INPUT_VIEW, ..., INPUT_BYTES). */
extern const char ss_export_torch_body[];

#endif
