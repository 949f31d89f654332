export type SubmittedTaskSummary = {taskId: string; index: number; tasks: number; testAccuracy?: number}

/** The tasks a submitter's JSON result lists (src/actors/submitJob.ts). */
export function submittedTasks(result: Record<string, unknown> | undefined): SubmittedTaskSummary[] {
  const tasks = Array.isArray(result?.tasks) ? (result.tasks as Record<string, unknown>[]) : []
  return tasks.flatMap((task) =>
    typeof task.taskId === 'string'
      ? [{taskId: task.taskId, index: Number(task.index ?? 0), tasks: Number(task.tasks ?? 1), ...(typeof task.testAccuracy === 'number' ? {testAccuracy: task.testAccuracy} : {})}]
      : [],
  )
}
