// Runs a judged C# program (program.exe beside this launcher, which the compile script puts in
// main.exe's place when the program names Debug or Trace) with a trace listener that ends the
// process at the first failed Debug.Assert or Trace.Assert, as a failed assertion ends a program
// in the other languages. Mono's default listener only logs the failure and the program goes on
// to exit 0: MultiPL-E's C# tests (Debug.Assert lines in Main) would accept any answer.
using System;
using System.Diagnostics;
using System.Reflection;
using System.Runtime.ExceptionServices;

static class JudgeLauncher
{
    // The status of an uncaught exception, which is what a failed assertion is elsewhere.
    const int FailedAssertionExit = 1;

    sealed class FailingListener : TraceListener
    {
        public override void Write(string message) { }
        public override void WriteLine(string message) { }
        public override void Fail(string message) { Fail(message, null); }

        public override void Fail(string message, string detail)
        {
            Console.Out.Flush();
            Console.Error.WriteLine("Assertion failed: " + (message ?? "")
                + (string.IsNullOrEmpty(detail) ? "" : " " + detail));
            Console.Error.Write(ProgramFrames());
            Console.Error.Flush();
            Environment.Exit(FailedAssertionExit);
        }
    }

    // The failed assertion's place: the stack without Debug's, Trace's and the launcher's frames.
    static string ProgramFrames()
    {
        var frames = new System.Text.StringBuilder();
        foreach (StackFrame frame in new StackTrace(true).GetFrames())
        {
            MethodBase method = frame.GetMethod();
            Type type = method == null ? null : method.DeclaringType;
            if (type == null || type.Namespace == "System.Diagnostics"
                || type.Namespace == "System.Reflection" || type.Assembly == typeof(JudgeLauncher).Assembly)
                continue;
            frames.AppendLine("  at " + type.FullName + "." + method.Name);
        }
        return frames.ToString();
    }

    static int Main(string[] args)
    {
        Trace.Listeners.Clear();
        Trace.Listeners.Add(new FailingListener());
        string program = System.IO.Path.Combine(AppDomain.CurrentDomain.BaseDirectory, "program.exe");
        MethodInfo entry = Assembly.LoadFrom(program).EntryPoint;
        object[] parameters = entry.GetParameters().Length == 0 ? null : new object[] { args };
        try
        {
            object status = entry.Invoke(null, parameters);
            return status is int ? (int)status : 0;
        }
        catch (TargetInvocationException invocation)
        {
            // The program's own exception, uncaught, as if it had been thrown without the launcher.
            ExceptionDispatchInfo.Capture(invocation.InnerException).Throw();
            throw;
        }
    }
}
