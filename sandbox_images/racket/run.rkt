#lang racket/base
;; Runs a judged Racket program (the first argument) as `racket FILE` does (its configure-runtime
;; submodule, the module, its main submodule), except that a failed rackunit check fails the
;; program: rackunit reports a failed check on stderr and goes on, so a program of failing
;; checks (MultiPL-E's Racket tests) would exit 0. The report is rackunit's own; the exit
;; status is 1, as for an uncaught error.
;;
;; - A check outside a test case, or in a test-case, ends the program at once.
;; - Any other failure rackunit logs (a suite run by run-tests or run-test, typed/rackunit's
;;   checks, which log as rackunit's do) makes the program's end, or its (exit 0), exit 1.
(define arguments (current-command-line-arguments))
(define program `(file ,(path->string (path->complete-path (vector-ref arguments 0)))))
(current-command-line-arguments (for/vector ([argument (in-vector arguments 1)]) argument))

(define (run-if-declared submodule)
  (define name `(submod ,program ,submodule))
  (when (module-declared? name #t)
    (dynamic-require name #f)))

(define (run)
  (run-if-declared 'configure-runtime)
  (dynamic-require program #f)
  (run-if-declared 'main))

;; Declaring the program declares what it and its submodules require, rackunit's checks
;; included whichever way they come (rackunit, typed/rackunit, rackunit/text-ui): a program
;; that loads none runs as it is, without loading rackunit for nothing.
(define (uses-rackunit?)
  (module-declared? '(lib "rackunit/private/check.rkt") #f))

(define (run-failing-on-failed-checks)
  (define check-handler (dynamic-require 'rackunit 'current-check-handler))
  (define test-case-around (dynamic-require 'rackunit 'current-test-case-around))
  (define failures (let ([test-log (dynamic-require 'rackunit/log 'test-log)])
                     (lambda () (car (test-log)))))
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
  (define exit-as-asked (exit-handler))
  (define (exit-failing-after-failures status)
    (exit-as-asked (if (and (memv status '(0 #t)) (positive? (failures))) 1 status)))
  (parameterize ([check-handler (lambda (failure) (report failure) (exit 1))]
                 [test-case-around around-then-exit]
                 [exit-handler exit-failing-after-failures])
    (run)
    (when (positive? (failures))
      (exit 1))))

;; (void ...): this module's own top-level values are not the program's output.
(void (module-declared? program #t))
(void (if (uses-rackunit?) (run-failing-on-failed-checks) (run)))
