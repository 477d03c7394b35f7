/* Gaea's Global Arrays compatibility layer: the C names of Fortran-compatible types. */
#ifndef GAEA_GA_TYPESF2C_H
#define GAEA_GA_TYPESF2C_H

typedef long Integer; /* Fortran INTEGER as GA builds it on LP64 systems */
typedef float Real;
typedef double DoublePrecision;
typedef Integer logical;
typedef Integer Logical;

typedef struct {
  float real;
  float imag;
} SingleComplex;

typedef struct {
  double real;
  double imag;
} DoubleComplex;

#define FATR

#endif
