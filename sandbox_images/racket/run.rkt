#lang racket/base
;; Runs a judged Racket program (the first argument) as `racket FILE` does (its configure-runtime
;; submodule, the module, its main submodule), except that a failed rackunit check ends the
;; program: rackunit reports a failed check on stderr and goes on, so a program of failing
;; checks (MultiPL-E's Racket tests) would exit 0. The report is rackunit's own; the exit
;; status is 1, as for an uncaught error.
(define arguments (current-command-line-arguments))
(define program `(file ,(path->string (path->complete-path (vector-ref arguments 0)))))
(current-command-line-arguments (for/vector ([argument (in-vector arguments 1)]) argument))

(define (run-if-declared submodule)
  (define name `(submod ,program ,submodule))
  (when (module-declared? name #t)
    (dynamic-require name #f)))

;; rackunit is loaded only for a program that loads it (its checks are the only ones to end).
(define (uses-rackunit?)
  (for/or ([phase+imports (in-list (module->imports program))])
    (for/or ([import (in-list (cdr phase+imports))])
      (define name (resolved-module-path-name (module-path-index-resolve import)))
      (define file (if (pair? name) (car name) name))
      (and (path? file)
           (for/or ([part (in-list (explode-path file))])
             (equal? part (string->path "rackunit")))))))

(define (run)
  (run-if-declared 'configure-runtime)
  (dynamic-require program #f)
  (run-if-declared 'main))

;; A check outside a test case goes to the check handler; one inside a test-case to the test
;; case's handler, which reports it and goes on. Both report as rackunit does, then exit 1.
(define (run-ending-at-a-failed-check)
  (define check-handler (dynamic-require 'rackunit 'current-check-handler))
  (define test-case-around (dynamic-require 'rackunit 'current-test-case-around))
  (define report (check-handler))
  (define around (test-case-around))
  (define (around-then-exit thunk)
    (define failed? #f)
    (begin0
      (around (lambda ()
                (with-handlers ([(lambda (e) (not (exn:break? e)))
                                 (lambda (e) (set! failed? #t) (raise e))])
                  (thunk))))
      (when failed? (exit 1))))
  (parameterize ([check-handler (lambda (failure) (report failure) (exit 1))]
                 [test-case-around around-then-exit])
    (run)))

;; (void ...): this module's own top-level values are not the program's output.
(void (module-declared? program #t))
(void (if (uses-rackunit?) (run-ending-at-a-failed-check) (run)))
