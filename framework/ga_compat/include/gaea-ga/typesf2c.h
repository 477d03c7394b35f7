/* Gaea's Global Arrays compatibility layer: the C names of Fortran-compatible types. */
#ifndef GAEA_GA_TYPESF2C_H
#define GAEA_GA_TYPESF2C_H

typedef long Integer; /* Fortran INTEGER as GA builds it on LP64 systems */
typedef float Real;
typedef double DoublePrecision;
typedef Integer logical;
typedef Integer Logical;

/** Fortran COMPLEX. */
typedef struct {
  float real; /**< real part */
  float imag; /**< imaginary part */
} SingleComplex;

/** Fortran DOUBLE COMPLEX. */
typedef struct {
  double real; /**< real part */
  double imag; /**< imaginary part */
} DoubleComplex;

#define FATR

#endif
