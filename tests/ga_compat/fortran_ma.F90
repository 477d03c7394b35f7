! GA's Fortran API on Gaea (free form): MA stack and heap reached through dbl_mb/int_mb, direct
! access to a global array through dbl_mb, patch operations, dot products, transpose, matrix
! multiply and scans. Every rank checks values it can compute; a mismatch ends the job through
! ga_error. Built with default INTEGER and with -fdefault-integer-8.
program fortran_ma
  implicit none
#include "global.fh"
#include "mafdecls.fh"
  integer :: me, nproc
  call ga_initialize()
  if (.not. ma_init(MT_DBL, 200000, 200000)) call ga_error('ma_init', 0)
  me = ga_nodeid()
  nproc = ga_nnodes()
  call test_ma(me)
  call test_access(me)
  call test_patches(me, nproc)
  call test_matrix(me, nproc)
  call test_scan(me, nproc)
  if (me == 0) print *, 'fortran_ma: all checks passed'
  call ga_terminate()
end program fortran_ma

subroutine check(ok, what)
  implicit none
  logical, intent(in) :: ok
  character(len=*), intent(in) :: what
  if (.not. ok) call ga_error(what, 1)
end subroutine check

! MA: stack blocks (LIFO), a heap block, indices into dbl_mb and int_mb.
subroutine test_ma(me)
  implicit none
#include "global.fh"
#include "mafdecls.fh"
  integer, intent(in) :: me
  integer :: h1, h2, h3, k, avail
  MA_ACCESS_INDEX_TYPE :: i1, i2, i3, got
  avail = ma_inquire_stack(MT_DBL)
  call check(ma_push_get(MT_DBL, 1000, 'stack doubles', h1, i1), 'ma_push_get dbl')
  call check(ma_push_get(MT_INT, 500, 'stack ints', h2, i2), 'ma_push_get int')
  call check(ma_alloc_get(MT_DCPL, 64, 'heap complex', h3, i3), 'ma_alloc_get dcpl')
  do k = 0, 999
    dbl_mb(i1 + k) = 0.5d0 * k + me
  end do
  do k = 0, 499
    int_mb(i2 + k) = 7 * k - me
  end do
  do k = 0, 63
    dcpl_mb(i3 + k) = dcmplx(k, -k)
  end do
  ! The blocks do not overlap: every value is still there.
  do k = 0, 999
    call check(dbl_mb(i1 + k) == 0.5d0 * k + me, 'dbl_mb values')
  end do
  do k = 0, 499
    call check(int_mb(i2 + k) == 7 * k - me, 'int_mb values')
  end do
  do k = 0, 63
    call check(dcpl_mb(i3 + k) == dcmplx(k, -k), 'dcpl_mb values')
  end do
  call check(ma_get_index(h1, got) .and. got == i1, 'ma_get_index')
  call check(ma_inquire_stack(MT_DBL) <= avail - 1000, 'ma_inquire_stack after push')
  call sum_through_argument(dbl_mb(i1), 1000, me)
  call check(ma_pop_stack(h2), 'ma_pop_stack int')
  call check(ma_pop_stack(h1), 'ma_pop_stack dbl')
  call check(ma_free_heap(h3), 'ma_free_heap')
  call check(ma_inquire_stack(MT_DBL) == avail, 'stack empty again')
  call check(ma_sizeof(MT_DBL, 3, MT_BYTE) == 24, 'ma_sizeof')
end subroutine test_ma

! An MA block passed on as an ordinary array (how GA programs use dbl_mb(index)).
subroutine sum_through_argument(x, n, me)
  implicit none
  integer, intent(in) :: n, me
  double precision, intent(in) :: x(n)
  call check(abs(sum(x) - (0.5d0 * n * (n - 1) / 2 + n * me)) < 1d-9, 'dbl_mb block as argument')
end subroutine sum_through_argument

! nga_access: the local block of a global array as dbl_mb(index).
subroutine test_access(me)
  implicit none
#include "global.fh"
#include "mafdecls.fh"
  integer, intent(in) :: me
  integer, parameter :: n = 16
  integer :: g_a, lo(2), hi(2), ld(1), i, j
  GA_ACCESS_INDEX_TYPE :: idx
  double precision :: v(1)
  call check(ga_create(MT_DBL, n, n, 'acc', 0, 0, g_a), 'create')
  call ga_zero(g_a)
  call nga_distribution(g_a, me, lo, hi)
  if (lo(1) <= hi(1) .and. lo(2) <= hi(2)) then
    call nga_access(g_a, lo, hi, idx, ld)
    do j = lo(2), hi(2)
      do i = lo(1), hi(1)
        dbl_mb(idx + (i - lo(1)) + (j - lo(2)) * ld(1)) = i + 1000 * j
      end do
    end do
    call nga_release_update(g_a, lo, hi)
  end if
  call ga_sync()
  do j = 1, n, 5
    do i = 1, n, 3
      call ga_get(g_a, i, i, j, j, v, 1)
      call check(v(1) == i + 1000 * j, "element written through nga_access")
    end do
  end do
  call check(ga_destroy(g_a), 'destroy')
end subroutine test_access

! Patches: fill, scale, copy (transposed), add, dot; 2-D ga_ and n-D nga_ forms.
subroutine test_patches(me, nproc)
  implicit none
#include "global.fh"
#include "mafdecls.fh"
  integer, intent(in) :: me, nproc
  integer, parameter :: n = 10, m = 8
  integer :: g_a, g_b, g_c, lo(2), hi(2), blo(2), bhi(2), i, j
  double precision :: a(n, m), b(m, n), d
  call check(ga_create(MT_DBL, n, m, 'A', 0, 0, g_a), 'create A')
  call check(ga_create(MT_DBL, m, n, 'B', 0, 0, g_b), 'create B')
  call check(ga_duplicate(g_a, g_c, 'C'), 'duplicate')
  call ga_zero(g_a)
  call ga_fill_patch(g_a, 2, 4, 3, 5, 2d0)
  lo = (/ 2, 3 /)
  hi = (/ 4, 5 /)
  call nga_scale_patch(g_a, lo, hi, 1.5d0)
  call ga_get(g_a, 1, n, 1, m, a, n)
  do j = 1, m
    do i = 1, n
      if (i >= 2 .and. i <= 4 .and. j >= 3 .and. j <= 5) then
        call check(a(i, j) == 3d0, 'fill_patch then scale_patch')
      else
        call check(a(i, j) == 0d0, "outside the patch")
      end if
    end do
  end do
  call ga_sync()  ! every rank has read A before rank 0 overwrites it
  ! A(i,j) = i + 100 j everywhere, then B = A^T by a transposed patch copy.
  do j = 1, m
    do i = 1, n
      a(i, j) = i + 100 * j
    end do
  end do
  if (me == 0) call ga_put(g_a, 1, n, 1, m, a, n)
  call ga_sync()
  call ga_copy_patch('T', g_a, 1, n, 1, m, g_b, 1, m, 1, n)
  call ga_get(g_b, 1, m, 1, n, b, m)
  do j = 1, n
    do i = 1, m
      call check(b(i, j) == j + 100 * i, 'ga_copy_patch T')
    end do
  end do
  ! C = 2 A + (-1) A over the whole array, by the n-D patch form.
  lo = (/ 1, 1 /)
  hi = (/ n, m /)
  call nga_add_patch(2d0, g_a, lo, hi, -1d0, g_a, lo, hi, g_c, lo, hi)
  d = ga_ddot(g_a, g_c)
  call check(abs(d - sum(a * a)) < 1d-6 * d, 'nga_add_patch and ga_ddot')
  blo = (/ 1, 1 /)
  bhi = (/ m, n /)
  d = nga_ddot_patch(g_a, 'N', lo, hi, g_b, 'T', blo, bhi)
  call check(abs(d - sum(a * a)) < 1d-6 * d, 'nga_ddot_patch with T')
  d = ga_ddot_patch(g_a, 'N', 2, 3, 1, 1, g_c, 'N', 2, 3, 1, 1)
  call check(abs(d - (a(2, 1) ** 2 + a(3, 1) ** 2)) < 1d-9, 'ga_ddot_patch column piece')
  call ga_transpose(g_a, g_b)
  call ga_get(g_b, 1, m, 1, n, b, m)
  call check(all(b == transpose(a)), 'ga_transpose')
  call check(ga_destroy(g_a) .and. ga_destroy(g_b) .and. ga_destroy(g_c), 'destroy')
  if (nproc < 0) print *, me
end subroutine test_patches

! Matrix products in Fortran order, and element selection.
subroutine test_matrix(me, nproc)
  implicit none
#include "global.fh"
#include "mafdecls.fh"
  integer, intent(in) :: me, nproc
  integer, parameter :: m = 6, k = 4, n = 5
  integer :: g_a, g_b, g_c, i, j, idx(2)
  double precision :: a(m, k), b(k, n), c(m, n), ref(m, n), val
  call check(ga_create(MT_DBL, m, k, 'A', 0, 0, g_a), 'create A')
  call check(ga_create(MT_DBL, k, n, 'B', 0, 0, g_b), 'create B')
  call check(ga_create(MT_DBL, m, n, 'C', 0, 0, g_c), 'create C')
  do j = 1, k
    do i = 1, m
      a(i, j) = i - 2 * j
    end do
  end do
  do j = 1, n
    do i = 1, k
      b(i, j) = 0.5d0 * i + j
    end do
  end do
  if (me == 0) then
    call ga_put(g_a, 1, m, 1, k, a, m)
    call ga_put(g_b, 1, k, 1, n, b, k)
  end if
  call ga_zero(g_c)
  call ga_sync()
  call ga_dgemm('N', 'N', m, n, k, 1d0, g_a, g_b, 0d0, g_c)
  call ga_get(g_c, 1, m, 1, n, c, m)
  ref = matmul(a, b)
  call check(maxval(abs(c - ref)) < 1d-9, 'ga_dgemm N N')
  ! Rows 2..3 of C = A(2:3, :) B(:, 1:5) by ga_matmul_patch (C's other rows unchanged).
  call ga_zero(g_c)
  call ga_matmul_patch('N', 'N', 1d0, 0d0, g_a, 2, 3, 1, k, g_b, 1, k, 1, n, g_c, 2, 3, 1, n)
  call ga_get(g_c, 1, m, 1, n, c, m)
  call check(maxval(abs(c(2:3, :) - ref(2:3, :))) < 1d-9 .and. all(c(1, :) == 0d0), &
             'ga_matmul_patch')
  call nga_select_elem(g_a, 'max', val, idx)
  call check(val == maxval(a) .and. a(idx(1), idx(2)) == val, 'nga_select_elem max')
  call check(ga_destroy(g_a) .and. ga_destroy(g_b) .and. ga_destroy(g_c), 'destroy')
  if (nproc < 0) print *, me
end subroutine test_matrix

! Segmented prefix sums and pack over 1-D arrays (1-based lo and hi).
subroutine test_scan(me, nproc)
  implicit none
#include "global.fh"
#include "mafdecls.fh"
  integer, intent(in) :: me, nproc
  integer, parameter :: n = 20
  integer :: g_src, g_dst, g_mask, g_out, dims(1), chunk(1), i, cnt
  integer :: mask(n), got(n), packed(n)
  dims(1) = n
  chunk(1) = -1
  call check(nga_create(MT_INT, 1, dims, 'src', chunk, g_src), 'create src')
  call check(ga_duplicate(g_src, g_dst, 'dst'), 'dup')
  call check(ga_duplicate(g_src, g_mask, 'mask'), 'dup')
  call check(ga_duplicate(g_src, g_out, 'out'), 'dup')
  ! mask starts a segment at 1 and 11
  mask = 0
  mask(1) = 1
  mask(11) = 1
  if (me == 0) then
    call ga_put(g_src, 1, n, 1, 1, (/ (i, i = 1, n) /), n)
    call ga_put(g_mask, 1, n, 1, 1, mask, n)
  end if
  call ga_sync()
  call ga_scan_add(g_src, g_dst, g_mask, 1, n, 0)
  call ga_get(g_dst, 1, n, 1, 1, got, n)
  do i = 1, n
    if (i <= 10) then
      call check(got(i) == i * (i + 1) / 2, 'ga_scan_add first segment')
    else
      call check(got(i) == i * (i + 1) / 2 - 55, 'ga_scan_add second segment')
    end if
  end do
  call ga_zero(g_out)
  call ga_pack(g_src, g_out, g_mask, 1, n, cnt)
  call check(cnt == 2, 'ga_pack count')
  call ga_get(g_out, 1, 2, 1, 1, packed, 2)
  call check(packed(1) == 1 .and. packed(2) == 11, 'ga_pack values')
  call check(ga_destroy(g_src) .and. ga_destroy(g_dst) .and. ga_destroy(g_mask) .and. &
             ga_destroy(g_out), 'destroy')
  if (nproc < 0) print *, me
end subroutine test_scan
